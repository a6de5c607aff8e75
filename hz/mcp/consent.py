"""Asking the person before an approval or a rejection runs for an MCP client (elicitation).

Both protocol eras are served: on a handshake-era connection the server sends `elicitation/create` and
waits for the answer; on a 2026-07-28 connection the call returns an `InputRequiredResult` carrying the
question, and the client calls again with the answer and the `request_state` this module minted. The state
is a MAC over the tool and its arguments under a key of this process, so an answer the client made up
without being asked, or one given for other arguments, counts for nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from hz.ops.registry import Operation

_KEY = secrets.token_bytes(32)  # lives as long as the server: a restarted server asks again
QUESTION = "consent"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Yes, this is my decision",
            "description": "Tick to let it happen; leave it or decline to refuse.",
        }
    },
    "required": ["confirm"],
}


class Consent:
    """One decision to put to the person: what it is, and what came of asking."""

    def __init__(self, operation: Operation, request: Any, page: str | None) -> None:
        self.operation = operation
        self.item = str(getattr(request, "item", None) or getattr(request, "key", ""))
        self.page = page
        self.outcome = "unasked"  # unsupported | declined | cancelled | accepted

    @property
    def verb(self) -> str:
        return "approve" if self.operation.name == "approve" else "reject"

    def question(self) -> str:
        return (f"An assistant asks to {self.verb} {self.item} for you (as `hz {self.verb} {self.item}` would). "
                f"This is your decision: do you {self.verb} it?")  # fmt: skip

    async def ask(
        self, request: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> bool | types.InputRequiredResult:
        """True: the person said yes. False: they did not (or cannot be asked). An InputRequiredResult: the
        question, to return to a 2026-07-28 client, which calls again with the answer."""
        capabilities = request.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            self.outcome = "unsupported"
            return False
        if request.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self._modern(params)
        answer = await request.session.elicit_form(self.question(), SCHEMA, related_request_id=request.request_id)
        return self._judge(answer)

    def _modern(self, params: types.CallToolRequestParams) -> bool | types.InputRequiredResult:
        token = _token(params)
        answer = (params.input_responses or {}).get(QUESTION)
        if answer is None or params.request_state is None or not hmac.compare_digest(params.request_state, token):
            form = types.ElicitRequestFormParams(message=self.question(), requested_schema=SCHEMA)
            return types.InputRequiredResult(input_requests={QUESTION: types.ElicitRequest(params=form)},
                                             request_state=token)  # fmt: skip
        if not isinstance(answer, types.ElicitResult):
            self.outcome = "declined"
            return False
        return self._judge(answer)

    def _judge(self, answer: types.ElicitResult) -> bool:
        if answer.action == "accept" and (answer.content or {}).get("confirm") is True:
            self.outcome = "accepted"
            return True
        self.outcome = "cancelled" if answer.action == "cancel" else "declined"
        return False

    def refusal(self, request: ServerRequestContext[Any]) -> str:
        """Why nothing happened, naming the command and the page where the person decides themselves."""
        where = f"the agent's page at {self.page}" if self.page else "the agent's page of `hz serve`"
        yourself = f"run `hz {self.verb} {self.item}` in a terminal, or use {where}"
        if self.outcome == "unsupported":
            return (f"{self.verb} is a person's decision, and this client cannot ask its person (it offers no "
                    f"elicitation): {yourself}. To let an assistant decide without asking, start the server "
                    f"with `hz mcp --allow-approve`.")  # fmt: skip
        said = "dismissed the question" if self.outcome == "cancelled" else "said no"
        return f"nothing was done: the person {said}. To {self.verb} {self.item} later, {yourself}."


def _token(params: types.CallToolRequestParams) -> str:
    """The request state that binds an answer to this tool and exactly these arguments."""
    bound = json.dumps([params.name, params.arguments or {}], sort_keys=True, ensure_ascii=True)
    return hmac.new(_KEY, bound.encode(), hashlib.sha256).hexdigest()


__all__ = ["QUESTION", "SCHEMA", "Consent"]
