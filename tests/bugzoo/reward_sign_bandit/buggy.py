"""Bug zoo program (buggy twin); the contract is in tests/bugzoo/README.md.

A contextual bandit: each context has one right action (the label); the environment reports a cost
(1 for a wrong action, 0 for the right one) and the policy is trained with REINFORCE.
"""
import torch
from torch import nn

TASK = "ce"
NUM_CLASSES = 4  # actions
EPOCHS = 30
BATCH_SIZE = 64


def make_data(n=600, d=10, seed=0):
    """Contexts drawn around one center per right action; returns x_train, y_train, x_val, y_val."""
    g = torch.Generator().manual_seed(seed)
    centers = 1.0 * torch.randn(NUM_CLASSES, d, generator=g)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    n_train = int(0.8 * n)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))


def env_cost(action, right_action):
    """What the environment reports: 1 for a wrong action, 0 for the right one."""
    return (action != right_action).float()


def loss_fn(logits, right_action):
    """REINFORCE with a mean baseline: sample one action per context, weight its log-prob by the reward."""
    dist = torch.distributions.Categorical(logits=logits)
    action = dist.sample()
    reward = env_cost(action, right_action)
    return -((reward - reward.mean()) * dist.log_prob(action)).mean()


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
    """Share of contexts where the greedy action is the right one."""
    model.eval()
    return (model(x).argmax(dim=1) == y).float().mean().item()


def main():
    torch.manual_seed(2)
    x, y, x_val, y_val = make_data()
    model = make_model()
    losses = train(model, make_optimizer(model), x, y)
    print(f"train loss {losses[0]:.4f} -> {losses[-1]:.4f}; val accuracy {evaluate(model, x_val, y_val):.4f}")


if __name__ == "__main__":
    main()
