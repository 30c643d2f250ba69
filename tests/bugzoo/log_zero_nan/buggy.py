"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "bce"
EPOCHS = 40
BATCH_SIZE = 64


def make_data(n=600, d=10, seed=0):
    """Two well separated classes, labels as float column; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 2, (n, 1), generator=g).float()
    x = torch.randn(n, d, generator=g) + 3.0 * (2 * y - 1)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_model():
    """An MLP that outputs the probability of class 1."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1), nn.Sigmoid())


def loss_fn(probs, target):
    """Binary cross-entropy written out by hand."""
    return -(target * torch.log(probs) + (1 - target) * torch.log(1 - probs)).mean()


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
    """Accuracy on (x, y)."""
    model.eval()
    return ((model(x) > 0.5).float() == y).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
