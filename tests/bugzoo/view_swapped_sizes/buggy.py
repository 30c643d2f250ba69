"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 2
EPOCHS = 15
BATCH_SIZE = 32


def make_data(n=400, t=7, d=5, seed=0):
    """Sequences (batch, time, features); label: is the sum of channel 0 positive."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, t, d, generator=g)
    y = (x[:, :, 0].sum(dim=1) > 0).long()
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


class AttentionClassifier(nn.Module):
    """Self-attention over time (sequence-first, the nn.MultiheadAttention default), mean over time, linear head."""

    def __init__(self, d=5, width=16, heads=2):
        super().__init__()
        self.proj = nn.Linear(d, width)
        self.attn = nn.MultiheadAttention(width, heads)
        self.head = nn.Linear(width, NUM_CLASSES)

    def forward(self, x):
        h = self.proj(x)
        h = h.view(h.size(1), h.size(0), -1)
        out, _ = self.attn(h, h, h, need_weights=False)
        return self.head(out.mean(dim=0))


def make_model():
    torch.manual_seed(0)
    return AttentionClassifier()


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
