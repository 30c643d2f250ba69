"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md."""
import math

import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4
EPOCHS = 15
BATCH_SIZE = 64
RANK = 4
NOT_APPLICABLE = {
    "gradient_flow": "the base weights are frozen by design, and lora_A gets exactly zero gradient while lora_B "
                     "is still at its zero initialisation",
}


def make_data(n=600, d=10, seed=0):
    """Gaussian blobs, one per class; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    centers = 1.0 * torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


class LoRALinear(nn.Module):
    """A linear layer plus a low-rank update B @ A; B starts at zero, so the wrapped layer starts unchanged."""

    def __init__(self, base, rank=RANK):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + x @ self.lora_A.T @ self.lora_B.T


def attach_lora(backbone):
    """Wrap every nn.Linear of the backbone."""
    for i, layer in enumerate(backbone):
        if isinstance(layer, nn.Linear):
            backbone[i] = LoRALinear(layer)


class Classifier(nn.Module):
    """A pretrained (here: seeded random) narrow backbone and a new linear head."""

    def __init__(self, d=10, hidden=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.backbone(x))


def make_model():
    torch.manual_seed(0)
    model = Classifier()
    attach_lora(model.backbone)
    for p in model.parameters():  # freeze the pretrained weights
        p.requires_grad_(False)
    model.head.requires_grad_(True)
    return model


loss_fn = nn.CrossEntropyLoss()


def make_optimizer(model):
    return torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)


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
