"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4
EPOCHS = 15
BATCH_SIZE = 64


def make_data(n=600, d=10, seed=0):
    """Gaussian blobs, one per class; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    centers = 1.0 * torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_model():
    """An MLP classifier."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-3)


def train(model, optimizer, x, y, epochs=EPOCHS):
    """Minibatch training; returns the loss of every step."""
    model.train()
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=False)
            losses.append(loss.item())
    return losses


@torch.no_grad()
def evaluate(model, x, y):
    """Accuracy on (x, y)."""
    model.eval()
    return (model(x).argmax(dim=1) == y).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
