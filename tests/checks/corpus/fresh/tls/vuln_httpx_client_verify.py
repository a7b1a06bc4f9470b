import httpx


class BillingClient:
    def __init__(self, base_url, token):
        self.client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}"},
            verify=False,
        )

    def invoices(self):
        return self.client.get("/invoices").json()
