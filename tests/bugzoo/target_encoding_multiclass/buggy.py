"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 3
EPOCHS = 10
BATCH_SIZE = 64
FOLDS = 5
N, N_TRAIN, N_CATEGORIES = 1200, 960, 300


def _raw(seed=0):
    """Eight numeric columns (two carry the target) and a high-cardinality category that carries nothing."""
    g = torch.Generator().manual_seed(seed)
    x_num = torch.randn(N, 8, generator=g)
    cat = torch.randint(0, N_CATEGORIES, (N,), generator=g)
    score = 2.0 * x_num[:, 0] - 1.5 * x_num[:, 1] + torch.randn(N, generator=g)
    y = torch.bucketize(score, torch.tensor([-1.0, 1.0]))
    return x_num, cat, y


X_NUM, CAT, Y = _raw()


def _encode(cat_fit, y_fit, cat_apply):
    """Share of the middle class per category on the fitting rows (unseen categories: the overall share)."""
    middle = (y_fit == 1).float()
    total = torch.zeros(N_CATEGORIES).index_add_(0, cat_fit, middle)
    count = torch.zeros(N_CATEGORIES).index_add_(0, cat_fit, torch.ones(len(cat_fit)))
    return torch.where(count > 0, total / count.clamp(min=1), middle.mean())[cat_apply]


def featurize(y):
    """Features of the training rows, with the category column encoded from the targets `y`."""
    cat = CAT[:N_TRAIN]
    enc = _encode(cat, y, cat)
    return torch.cat([X_NUM[:N_TRAIN], enc[:, None]], dim=1)


def make_data():
    """Numeric columns plus the encoded category; returns x_train, y_train, x_val, y_val."""
    y_train, y_val = Y[:N_TRAIN], Y[N_TRAIN:]
    enc_val = _encode(CAT[:N_TRAIN], y_train, CAT[N_TRAIN:])
    x_val = torch.cat([X_NUM[N_TRAIN:], enc_val[:, None]], dim=1)
    return featurize(y_train), y_train, x_val, y_val


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


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
