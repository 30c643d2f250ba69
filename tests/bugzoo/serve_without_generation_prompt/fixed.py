"""Bug zoo program (fixed twin); the contract is in tests/bugzoo/README.md."""
import torch
from torch import nn

TASK = "ce"
INPUT_MODULE = "embed"  # token ids cannot carry gradients or NaN; diagnostics perturb this layer
PAD, BOS, USER, END, ASSISTANT, EOS = range(6)  # special tokens of the chat format
WORDS = 12  # word ids 6 .. 17
VOCAB = 6 + WORDS
LEN = 4  # words per user message
EPOCHS = 20
BATCH_SIZE = 32
NOT_APPLICABLE = {
    "class_balance": "the labels are next-token ids (template tokens, answers and EOS), not class labels: "
                     "the chat format makes a few ids dominate in every twin",
}


def train_rows(content, answers):
    """Training rendering of one-turn chats: BOS USER words END ASSISTANT answer EOS.

    Returns (input_ids, labels); labels are -100 on BOS and the user's turn, so the model learns
    the chat format and the answer."""
    n = len(content)
    ids = torch.cat([torch.tensor([[BOS, USER]]).expand(n, 2), content,
                     torch.tensor([[END, ASSISTANT]]).expand(n, 2), answers[:, None],
                     torch.full((n, 1), EOS)], dim=1)
    labels = torch.full_like(ids, -100)
    labels[:, 2 + LEN:] = ids[:, 2 + LEN:]
    return ids, labels


def serve_prompt(content):
    """Serving rendering of the same chats, up to where the model starts its answer."""
    n = len(content)
    return torch.cat([torch.tensor([[BOS, USER]]).expand(n, 2), content,
                      torch.tensor([[END, ASSISTANT]]).expand(n, 2)], dim=1)


def content_of(ids):
    """The user's words of training rows."""
    return ids[:, 2:2 + LEN]


def answer_of(ids):
    """The assistant's answer in training rows."""
    return ids[:, -2]


def make_data(n=600, seed=0):
    """The assistant repeats the user's largest word; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    content = torch.randint(6, VOCAB, (n, LEN), generator=g)
    ids, labels = train_rows(content, content.max(dim=1).values)
    n_train = int(0.8 * n)
    return ids[:n_train], labels[:n_train], ids[n_train:], labels[n_train:]


class TinyLM(nn.Module):
    """Embedding, a GRU and a next-token head."""

    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, VOCAB)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.out(h)  # (batch, time, vocab)


def make_model():
    torch.manual_seed(0)
    return TinyLM()


criterion = nn.CrossEntropyLoss()  # ignore_index -100: the user's turn is not trained


def loss_fn(logits, labels):
    """Next-token loss: position t predicts token t + 1."""
    return criterion(logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1))


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
    """Served accuracy: the first token the model answers to the serving prompt of each chat."""
    model.eval()
    answer = model(serve_prompt(content_of(x)))[:, -1].argmax(dim=-1)
    return (answer == answer_of(x)).float().mean().item()


def main():
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
