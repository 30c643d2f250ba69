"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 5
EPOCHS = 20
BATCH_SIZE = 64
EDGES = torch.tensor([2.0, 3.0, 4.0, 5.0])  # ratings 1..5 -> classes 0..4: [1, 2) [2, 3) [3, 4) [4, 5) [5, inf)


def _raw(n=1500, d=8, seed=0):
    """Features and an integer rating from 1 to 5 stored as a float, as a regression target usually is."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    score = x @ torch.randn(d, generator=g) / d ** 0.5
    rating = (1.3 * score + 3.0).round().clamp(1.0, 5.0)
    return x, rating


X, RATING = _raw()
N_TRAIN = 1200


def to_class(rating):
    """Bin a rating into its class."""
    return torch.bucketize(rating, EDGES, right=True)


def binning():
    """(values, their class labels, edges) of the training rows, for checking the binning."""
    return RATING[:N_TRAIN], to_class(RATING[:N_TRAIN]), EDGES


def make_data():
    """Returns x_train, y_train, x_val, y_val with the rating binned into classes."""
    y = to_class(RATING)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


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
    """Accuracy on (x, y)."""
    model.eval()
    return (model(x).argmax(dim=1) == y).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    with torch.no_grad():
        decoded = EDGES[0] - 1.0 + model.eval()(x_val).argmax(dim=1).float()  # class k -> rating k + 1
    exact = (decoded == RATING[N_TRAIN:]).float().mean().item()
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}; "
          f"decoded rating exact on val {exact:.4f}")


if __name__ == "__main__":
    main()
