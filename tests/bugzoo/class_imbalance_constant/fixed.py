"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 2
EPOCHS = 10
BATCH_SIZE = 64


def make_data(n=2000, d=10, seed=0):
    """Rare positives (about 5%) with a weak signal; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    y = (torch.rand(n, generator=g) < 0.05).long()
    x = torch.randn(n, d, generator=g)
    x[:, 0] += 1.5 * y
    n_train = int(0.8 * n)
    x_train, y_train = x[:n_train], y[:n_train]
    n_pos = int(y_train.sum())
    keep = (y_train == 1) | (torch.rand(n_train, generator=g) < n_pos / (n_train - n_pos))  # undersample
    x_train, y_train = x_train[keep], y_train[keep]
    return x_train, y_train, x[n_train:], y[n_train:]


def make_model():
    """An MLP classifier."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, NUM_CLASSES))


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)


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
    """Balanced accuracy: the mean of the per-class recalls."""
    model.eval()
    pred = model(x).argmax(dim=1)
    return sum((pred[y == c] == c).float().mean().item() for c in range(NUM_CLASSES)) / NUM_CLASSES


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val balanced accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
