"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import numpy as np
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 3
EPOCHS = 10
BATCH_SIZE = 64
CITIES = ["Oslo", "Lima", "Pune", "Kobe", "Graz", "Nice", "Baku", "Cork", "Bern", "Faro"]


def load_raw(n=600, seed=0):
    """Six numeric columns, a city name per row and a class label: (x, city, y) as numpy arrays, rows first."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype(np.float32)
    city = rng.choice(CITIES, size=n)
    y = np.digitize(x[:, 0] + x[:, 1] + 0.5 * rng.normal(size=n), [-0.8, 0.8]).astype(np.int64)
    return x, city, y


def prepare(raw):
    """Standardise, code the city by the sorted vocabulary, split; returns x_train, y_train, x_val, y_val."""
    x, city, y = raw
    n_train = int(0.8 * len(x))
    mean, std = x[:n_train].mean(axis=0), x[:n_train].std(axis=0)
    vocab = {name: i for i, name in enumerate(sorted(set(city[:n_train].tolist())))}
    code = np.array([vocab.get(name, len(vocab)) for name in city], dtype=np.float32) / len(vocab)
    features = torch.from_numpy(np.column_stack([(x - mean) / std, code]).astype(np.float32))
    labels = torch.from_numpy(y)
    return features[:n_train], labels[:n_train], features[n_train:], labels[n_train:]


def heldout_rows(n=600):
    """The raw rows prepare() holds out for validation."""
    return torch.arange(int(0.8 * n), n)


def make_data():
    """Returns x_train, y_train, x_val, y_val."""
    return prepare(load_raw())


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(7, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


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
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
