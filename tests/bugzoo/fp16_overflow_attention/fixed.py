"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 2
INPUT_MODULE = "embed"
EPOCHS = 10
BATCH_SIZE = 64
AUTOCAST = torch.float16  # the precision the training step computes in
VOCAB, LENGTH, DIM = 50, 12, 32


def make_data(n=600, seed=0):
    """Token sequences; the label says whether token 1 occurs; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(2, VOCAB, (n, LENGTH), generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x[y == 1, 0] = 1
    x = x[:, torch.randperm(LENGTH, generator=g)]
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


class Attention(nn.Module):
    """Self-attention without projections: every position attends to every other one."""

    def forward(self, h):
        scores = h @ h.transpose(1, 2)
        weights = torch.softmax(scores, dim=-1)
        return weights @ h


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.attend = Attention()
        self.head = nn.Linear(DIM, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.attend(self.embed(x)).mean(dim=1))


def make_model():
    torch.manual_seed(0)
    return Net()


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
