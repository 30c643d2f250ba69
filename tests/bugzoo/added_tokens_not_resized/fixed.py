"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
INPUT_MODULE = "embed"  # token ids cannot carry gradients or NaN; diagnostics perturb this layer
VOCAB = 20  # the base vocabulary: 0 = padding, 1 = unknown word, 2..19 = words
UNK = 1
SEP = VOCAB  # a special token added to the tokenizer after the base vocabulary
NUM_CLASSES = 3  # (the word right after the separator) mod 3
SEQ_LEN = 12
EPOCHS = 20
BATCH_SIZE = 32


def make_data(n=600, seed=0):
    """Token sequences with one separator; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(UNK, VOCAB, (n, SEQ_LEN), generator=g)  # unknown words occur like any other
    where = torch.randint(0, SEQ_LEN - 1, (n,), generator=g)
    rows = torch.arange(n)
    tokens[rows, where] = SEP
    labels = tokens[rows, where + 1] % NUM_CLASSES
    n_train = int(0.8 * n)
    return tokens[:n_train], labels[:n_train], tokens[n_train:], labels[n_train:]


class Classifier(nn.Module):
    """Embedding, a 1-d convolution over neighbouring tokens, max over time, a linear head."""

    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB + 1, dim)  # resized for the added token
        self.conv = nn.Conv1d(dim, 64, kernel_size=2)
        self.out = nn.Linear(64, NUM_CLASSES)

    def forward(self, tokens):
        tokens = torch.where(tokens < self.embed.num_embeddings, tokens, UNK)  # ids past the table read as unknown
        h = self.embed(tokens).transpose(1, 2)  # (batch, dim, time) for Conv1d
        h = torch.relu(self.conv(h)).amax(dim=2)
        return self.out(h)


def make_model():
    torch.manual_seed(0)
    return Classifier()


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
