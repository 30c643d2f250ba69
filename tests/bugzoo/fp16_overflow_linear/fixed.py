"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4
EPOCHS = 10
BATCH_SIZE = 64
AUTOCAST = torch.float16  # the precision the training step computes in


def make_data(n=600, d=10, seed=0):
    """Gaussian blobs recorded in raw units around 30000; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    centers = 1.0 * torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = 1e4 * (centers[y] + torch.randn(n, d, generator=g)) + 3e4
    x = (x - 3e4) / 1e4
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_model():
    """An MLP classifier."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-2)


def train(model, optimizer, x, y, epochs=EPOCHS):
    """Minibatch training under float16 autocast with a gradient scaler; returns the loss of every step."""
    model.train()
    scaler = torch.amp.GradScaler("cpu")
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=AUTOCAST):
                loss = loss_fn(model(x[idx]), y[idx])
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
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
