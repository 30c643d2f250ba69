"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4
EPOCHS = 10
BATCH_SIZE = 64
OFFSET = 300.0  # raw sensor readings, far from zero


def make_data(n=600, d=16, seed=0):
    """One feature pattern per class on top of a large common offset; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    patterns = torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = OFFSET + patterns[y] + 0.5 * torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


class RowNorm(nn.Module):
    """Standardises each row over its features (a layer norm without a learned scale)."""

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = (x * x).mean(dim=-1, keepdim=True) - mean * mean
        return (x - mean) / torch.sqrt(var + 1e-5)


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(RowNorm(), nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, NUM_CLASSES))


def compile_model(model):
    """The serving path: the trained model, compiled."""
    return torch.compile(model)


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-2)


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
    model.eval()
    return (model(x).argmax(dim=1) == y).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    served = compile_model(model)
    with torch.no_grad():
        gap = (served(x_val) - model(x_val)).abs().max().item()
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}; "
          f"compiled vs eager max |diff| {gap:.2e}")


if __name__ == "__main__":
    main()
