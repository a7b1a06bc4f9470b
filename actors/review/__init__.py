"""The review side's actors: the Supervisor, the seven layers, human review, the decision
outbox, grants and the worker roster (docs/design.md, "The house")."""
