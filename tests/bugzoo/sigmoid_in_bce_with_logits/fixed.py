"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn
from torch.nn import functional as F

TASK = "bce"
EPOCHS = 15
BATCH_SIZE = 64


def make_data(n=600, d=10, seed=0):
    """Two overlapping Gaussian classes, labels as a float column; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    direction = torch.randn(d, generator=g)
    y = torch.randint(0, 2, (n, 1), generator=g).float()
    x = (2 * y - 1) * direction + 1.5 * torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_model():
    """An MLP with one output score per sample."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1))


def loss_fn(output, target):
    """Binary cross-entropy on the model's scores."""
    loss = F.binary_cross_entropy_with_logits(output, target)
    return loss


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
    """Accuracy on (x, y), a positive score meaning class 1."""
    model.eval()
    return ((model(x) > 0).float() == y).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
