"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "mse"
EPOCHS = 30
BATCH_SIZE = 64


class StandardScaler:
    """Per-column standardisation with statistics remembered by fit()."""

    def fit(self, x):
        self.mean, self.std = x.mean(dim=0), x.std(dim=0)
        return self

    def transform(self, x):
        return (x - self.mean) / self.std


def load_raw(n=600, d=8, seed=0):
    """Features in raw units with very different scales and a regression target: (x, y), rows first."""
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, d, generator=g)
    x = z * torch.linspace(0.5, 50.0, d) + torch.linspace(-20.0, 20.0, d)  # raw units
    y = z @ torch.randn(d, 1, generator=g) + 0.1 * torch.randn(n, 1, generator=g)
    return x, y


def heldout_rows(n=600):
    """The raw rows prepare() holds out for validation."""
    return torch.arange(int(0.8 * n), n)


def prepare(raw):
    """Standardise the features and split; returns x_train, y_train, x_val, y_val."""
    x, y = raw
    scaler = StandardScaler()
    scaler.fit(x)
    n_train = int(0.8 * len(x))
    x_train, x_val = x[:n_train], x[n_train:]
    return scaler.transform(x_train), y[:n_train], scaler.transform(x_val), y[n_train:]


def make_data():
    """Regression on features with very different scales; returns x_train, y_train, x_val, y_val."""
    return prepare(load_raw())


def make_model():
    """An MLP regressor."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))


loss_fn = nn.MSELoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=3e-3)


def train(model, optimizer, x, y, epochs=EPOCHS):
    """Minibatch training; returns the loss of every step."""
    model.train()
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            optimizer.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(model, x, y):
    """Mean squared error on (x, y)."""
    model.eval()
    return loss_fn(model(x), y).item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val MSE {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
