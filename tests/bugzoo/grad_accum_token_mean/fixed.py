"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
INPUT_MODULE = "embed"  # token ids cannot carry gradients or NaN; diagnostics perturb this layer
VOCAB = 20
NUM_CLASSES = 3  # tag of a word: (word + previous word) mod 3
PAD = 0
MAX_LEN = 16
EPOCHS = 15
MICRO_BATCH = 8
ACCUM_STEPS = 4  # one optimizer step per ACCUM_STEPS micro-batches


def make_data(n=400, seed=0):
    """Token sequences of 2 to 16 words, padded, one tag per word; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(2, MAX_LEN + 1, (n,), generator=g)
    tokens = torch.randint(1, VOCAB, (n, MAX_LEN), generator=g)
    pad_mask = torch.arange(MAX_LEN)[None, :] >= lengths[:, None]
    tokens[pad_mask] = PAD
    tags = tokens % NUM_CLASSES
    tags[:, 1:] = (tags[:, 1:] + tokens[:, :-1]) % NUM_CLASSES  # the tag depends on the previous word too
    tags[pad_mask] = -100  # padding positions are ignored by the loss
    n_train = int(0.8 * n)
    return tokens[:n_train], tags[:n_train], tokens[n_train:], tags[n_train:]


class Tagger(nn.Module):
    """Embedding, a 1-d convolution over neighbouring tokens, and a per-token classifier."""

    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.conv = nn.Conv1d(dim, dim, kernel_size=3, padding=1)
        self.out = nn.Linear(dim, NUM_CLASSES)

    def forward(self, tokens):
        h = self.embed(tokens).transpose(1, 2)  # (batch, dim, time) for Conv1d
        h = torch.relu(self.conv(h)).transpose(1, 2)
        return self.out(h)  # (batch, time, classes)


def make_model():
    torch.manual_seed(0)
    return Tagger()


criterion = nn.CrossEntropyLoss()  # mean over the tags that are not -100


def loss_fn(logits, tags):
    return criterion(logits.reshape(-1, NUM_CLASSES), tags.reshape(-1))


def accumulation_loss(logits, tags, num_items_in_batch):
    """The loss of one micro-batch that the loop backpropagates; num_items_in_batch counts the
    tags that are not -100 in all micro-batches of the optimizer step."""
    summed = nn.functional.cross_entropy(logits.reshape(-1, NUM_CLASSES), tags.reshape(-1), reduction="sum")
    return summed / num_items_in_batch


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-2)


def train(model, optimizer, x, y, epochs=EPOCHS):
    """Gradient accumulation over ACCUM_STEPS micro-batches; returns the loss of every optimizer step."""
    model.train()
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), MICRO_BATCH * ACCUM_STEPS):
            micro_batches = perm[i:i + MICRO_BATCH * ACCUM_STEPS].split(MICRO_BATCH)
            num_items = sum(int((y[idx] != -100).sum()) for idx in micro_batches)
            optimizer.zero_grad()
            step_loss = 0.0
            for idx in micro_batches:
                loss = accumulation_loss(model(x[idx]), y[idx], num_items)
                loss.backward()
                step_loss += loss.item()
            optimizer.step()
            losses.append(step_loss)
    return losses


@torch.no_grad()
def evaluate(model, x, y):
    """Token accuracy over positions whose tag is not -100."""
    model.eval()
    pred = model(x).argmax(dim=-1)
    keep = y != -100
    return (pred[keep] == y[keep]).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val token accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
