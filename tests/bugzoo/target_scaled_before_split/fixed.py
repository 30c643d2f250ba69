"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn
from torch.utils.data import random_split

TASK = "mse"
EPOCHS = 30
BATCH_SIZE = 64


class Standardizer:
    """Standardisation with statistics remembered by fit()."""

    def fit(self, t):
        self.mean, self.std = t.mean(dim=0), t.std(dim=0)
        return self

    def transform(self, t):
        return (t - self.mean) / self.std


def load_raw(n=600, d=8, seed=0):
    """Features and a target in large raw units: (x, y), rows first."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = 50.0 + 10.0 * (x @ torch.randn(d, 1, generator=g)) + torch.randn(n, 1, generator=g)
    return x, y


def heldout_rows(n=600):
    """The raw rows prepare() holds out for validation (the same seeded split)."""
    split = random_split(range(n), [int(0.8 * n), n - int(0.8 * n)], generator=torch.Generator().manual_seed(1))
    return torch.tensor(split[1].indices)


def prepare(raw):
    """Standardise the target and split at random; returns x_train, y_train, x_val, y_val."""
    x, y = raw
    n = len(x)
    split = random_split(range(n), [int(0.8 * n), n - int(0.8 * n)], generator=torch.Generator().manual_seed(1))
    train_rows, val_rows = (torch.tensor(s.indices) for s in split)
    y_scaler = Standardizer().fit(y[train_rows])
    y = y_scaler.transform(y)
    return x[train_rows], y[train_rows], x[val_rows], y[val_rows]


def make_data():
    """Regression with a target in large raw units, trained on its standardised value."""
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
    """Mean squared error on (x, y), in standardised units."""
    model.eval()
    return loss_fn(model(x), y).item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val MSE {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
