"""The code under test: walk reminders sent with aioapns, a well-known asyncio APNs client.

A real backend would build one client for Apple's servers; `make_client` also takes a host and a port
so tests can point it at `pushctl mock-apns`.
"""
import ssl
from typing import Dict, List, Optional

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol

GONE = {"Unregistered", "ExpiredToken", "BadDeviceToken"}


def make_client(*, p8_file: str, key_id: str, team_id: str, topic: str,
                host: Optional[str] = None, port: Optional[int] = None, ca_file: Optional[str] = None) -> APNs:
    """An aioapns client with token (.p8) authentication, for Apple's sandbox or for host:port."""
    with open(p8_file) as handle:
        key = handle.read()
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None
    client = APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, use_sandbox=True,
                  ssl_context=context, max_connection_attempts=3)
    if host is not None:
        # aioapns takes Apple's host and port from its protocol class; a subclass points it elsewhere.
        client.pool.protocol_class = type("CustomHostProtocol", (APNsDevelopmentClientProtocol,),
                                          {"APNS_SERVER": host, "APNS_PORT": port})
    return client


class WalkNotifier:
    """Sends "time for a walk" to each device of a user and forgets tokens APNs says are gone."""

    def __init__(self, client: APNs, tokens: Dict[str, List[str]]):
        self.client = client
        self.tokens = tokens

    async def remind(self, user: str, dog: str) -> Dict[str, List[str]]:
        report: Dict[str, List[str]] = {"delivered": [], "removed": [], "failed": []}
        for token in list(self.tokens.get(user, [])):
            request = NotificationRequest(
                device_token=token,
                message={"aps": {"alert": f"Time for a walk with {dog}", "category": "WALK_REMINDER"}},
                push_type=PushType.ALERT)
            result = await self.client.send_notification(request)
            if result.is_successful:
                report["delivered"].append(token)
            elif result.description in GONE:
                self.tokens[user].remove(token)
                report["removed"].append(token)
            else:
                report["failed"].append(token)
        return report
