"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "mse"
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
    y = score
    return x_num, cat, y


X_NUM, CAT, Y = _raw()


def _encode(cat_fit, y_fit, cat_apply):
    """Spread (std) of the target per category on the fitting rows (categories with under two rows: overall)."""
    total = torch.zeros(N_CATEGORIES).index_add_(0, cat_fit, y_fit)
    squares = torch.zeros(N_CATEGORIES).index_add_(0, cat_fit, y_fit ** 2)
    count = torch.zeros(N_CATEGORIES).index_add_(0, cat_fit, torch.ones(len(cat_fit)))
    mean = total / count.clamp(min=1)
    std = (squares / count.clamp(min=1) - mean ** 2).clamp(min=0).sqrt()
    return torch.where(count > 1, std, y_fit.std())[cat_apply]


def featurize(y):
    """Features of the training rows, with the category column encoded from the targets `y`."""
    cat, fold = CAT[:N_TRAIN], torch.arange(N_TRAIN) % FOLDS
    enc = torch.empty(N_TRAIN)
    for k in range(FOLDS):
        enc[fold == k] = _encode(cat[fold != k], y[fold != k], cat[fold == k])
    return torch.cat([X_NUM[:N_TRAIN], enc[:, None]], dim=1)


def make_data():
    """Numeric columns plus the encoded category; returns x_train, y_train, x_val, y_val."""
    y_train, y_val = Y[:N_TRAIN], Y[N_TRAIN:]
    enc_val = _encode(CAT[:N_TRAIN], y_train, CAT[N_TRAIN:])
    x_val = torch.cat([X_NUM[N_TRAIN:], enc_val[:, None]], dim=1)
    return featurize(y_train), y_train, x_val, y_val


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Linear(64, 1))


mse = nn.MSELoss()


def loss_fn(output, target):
    return mse(output.squeeze(1), target)


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
    """Mean squared error on (x, y)."""
    model.eval()
    return loss_fn(model(x), y).item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val MSE {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
