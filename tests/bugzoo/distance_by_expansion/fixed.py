"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4
EPOCHS = 10
BATCH_SIZE = 64
OFFSET = 300.0  # raw sensor readings, far from zero


def make_data(n=600, d=10, seed=0):
    """Gaussian blobs, one per class, around a large common offset; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    centers = OFFSET + torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + 0.5 * torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def sq_distances(a, b):
    """Squared Euclidean distance between every row of a and every row of b."""
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=2)


class Prototypes(nn.Module):
    """One learned prototype per class; the logit is minus the squared distance to it."""

    def __init__(self, d, k):
        super().__init__()
        self.centers = nn.Parameter(OFFSET + 0.01 * torch.randn(k, d))  # start at the data's mean

    def forward(self, x):
        return -sq_distances(x, self.centers)


def make_model():
    torch.manual_seed(0)
    return Prototypes(10, NUM_CLASSES)


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=5e-2)


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
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
