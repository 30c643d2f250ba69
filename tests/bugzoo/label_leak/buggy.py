"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 2
EPOCHS = 15
BATCH_SIZE = 64
# columns of the table: ten measurements, a follow-up code recorded after the outcome, the label
COLUMNS = [f"m{i}" for i in range(10)] + ["followup_code", "label"]
FEATURES = COLUMNS[:-1]


def load_table(n=600, seed=0):
    """A synthetic patient table; the label depends weakly on the measurements."""
    g = torch.Generator().manual_seed(seed)
    m = torch.randn(n, 10, generator=g)
    label = ((m[:, 0] + m[:, 1] + 1.5 * torch.randn(n, generator=g)) > 0).float()
    followup = 3.0 * label + 0.1 * torch.randn(n, generator=g)  # only exists because of the outcome
    return torch.cat([m, followup[:, None], label[:, None]], dim=1)


def load_raw():
    """The raw table, one row per patient."""
    return load_table()


def heldout_rows(n=600):
    """The raw rows prepare() holds out for validation."""
    return torch.arange(int(0.8 * n), n)


def prepare(table):
    """Feature matrix and labels from the table; returns x_train, y_train, x_val, y_val."""
    x = table[:, [COLUMNS.index(c) for c in FEATURES]]
    y = table[:, COLUMNS.index("label")].long()
    n_train = int(0.8 * len(table))
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_data():
    """Feature matrix and labels from the table; returns x_train, y_train, x_val, y_val."""
    return prepare(load_raw())


def make_model():
    """An MLP classifier."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


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
