"""The delivery pipeline's actors and their storage: the Monitor, the pipeline Supervisor,
the agents, the work ledger, project storage and the audit trail (docs/design.md, "The house")."""
