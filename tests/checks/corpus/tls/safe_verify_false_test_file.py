from app.http import HttpClient


def test_verify_can_be_switched_off_for_local_servers():
    client = HttpClient(base_url="https://localhost:8443", verify=False)
    assert client.session.verify is False
