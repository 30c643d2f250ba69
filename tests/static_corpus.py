"""Small planted examples for the searches of refs/static_analysis.md.

Two corpora, written to a temporary folder by the tests: ``PLANTED`` gives every documented
search at least one hit (several searches have no zoo bug of their own) and exercises the
corners of ripgrep's output that the emulation must reproduce: nested folders sorted by
name, upper case before lower case, a hidden folder, a non-Python file, CRLF line endings,
a last line without a newline, non-ASCII text, context groups that touch, and multi-line
matches that share lines. ``ONE_FILE`` holds a single file, so that a search piped into
``xargs rg`` gets one path and ripgrep prints no file names.
"""

from __future__ import annotations

from pathlib import Path

MODEL = '''import torch
import torch.nn.functional as F
from torch import nn

criterion = nn.CrossEntropyLoss()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 3), nn.Softmax(dim=1))
        nn.init.constant_(self.body[0].weight, 0.5)

    def forward(self, x):
        h = self.body(x)
        return F.softmax(h, dim=-1)


def compute_loss(model, x, y):
    logits = model(x)
    loss = criterion(F.softmax(logits, dim=1), y)
    aux = torch.tensor(logits.detach().numpy()).mean()
    bce = F.binary_cross_entropy_with_logits(torch.sigmoid(logits), y.float())
    return loss + aux + bce
'''

LOOP = '''import torch

for epoch in range(3):
    scheduler.step()
    for xb, yb in loader:
        loss = model(xb).sum()
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val = model(xv)
    print(val.item())


def evaluate(model, x):
    return model(x)
'''

SHAPES = '''import torch.nn.functional as F


def seq_loss(x, pred, y):
    b, t, d = x.shape
    x = x.view(x.size(1), x.size(0), -1)
    y = y.reshape(t, b, d)
    pred = pred.squeeze()
    return F.mse_loss(pred, y) + ((pred - y) ** 2).mean()
'''

SPLIT = '''from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

scaler = StandardScaler()
X = scaler.fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y)
mean = X_train.mean(axis=0)
norm = Normalizer().fit(feats)
train_feats, test_feats = feats[:800], feats[800:]
'''

LOADERS = '''from torch.utils.data import DataLoader, DistributedSampler

plain = DataLoader(ds, batch_size=32)
shuffled = DataLoader(ds, batch_size=32, shuffle=True)
spread = DataLoader(
    TensorDataset(x[idx(1)], y),
    batch_size=len(x),
)
sampled = DataLoader(ds, sampler=DistributedSampler(ds))
too_deep = DataLoader(ds, collate_fn=a(b(c(d))))
'''

NO_GRAD = '''import torch


@torch.no_grad()
def update_target(net, target):
    for p, q in zip(net.parameters(), target.parameters()):
        q.data.mul_(0.99).add_(0.01 * p.data)


with torch.no_grad():
    feats = backbone(x)
logits = head(feats)
loss = F.cross_entropy(logits, y)
loss.backward()
opt.step()
for p in backbone.parameters():
    p.requires_grad = False
torch.set_grad_enabled(False)
x[mask] = 0
x += 1
'''

MISC = '''import torch
from torch.nn.utils.rnn import pad_sequence

criterion = torch.nn.NLLLoss()
batch = pad_sequence(seqs, batch_first=True)
é = torch.log(probs)
layer.weight.data.fill_(0)
loss = criterion(torch.softmax(out, 1), y)
sampler = DistributedSampler(ds)
model.train(True)'''  # no newline at the end

PLANTED = {
    "model.py": MODEL,
    "loop.py": LOOP,
    "B_shapes.py": SHAPES,
    "a_split.py": SPLIT,
    "data/loaders.py": LOADERS,
    "data/deeper/no_grad.py": NO_GRAD,
    "misc.py": MISC,
    "crlf.py": LOOP.replace("\n", "\r\n"),
    ".hidden/model.py": MODEL,
    "notes.txt": MODEL,
    "nb.ipynb": '{"cells": [{"source": ["loss = criterion(F.softmax(logits, dim=1), y)\\n"]}]}\n',
}

ONE_FILE = {"only.py": MODEL + LOOP}


def write(files: dict[str, str], root: Path) -> Path:
    """Write ``files`` (relative path -> text, newlines kept as given) under ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root
