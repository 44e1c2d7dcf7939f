"""The HTML of the authorization endpoint: the consent page and the error page.

Plain HTML with one form, so that a browser, a test's HTTP client or a headless browser can all
approve: the form posts the request's own parameters back (hidden fields), the member (a hidden
field when one is signed in through the control plane, else a ``<select name="member_id">``) and
the button pressed (``decision`` = ``allow``, ``cancel`` or ``cancel_login``). Every value is
HTML-escaped. The wording is the fake's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from string import Template

#: plain-language meaning of the scopes an application may ask for (unknown ones show as named)
SCOPE_MEANINGS = {
    "r_dma_portability_self_serve": "Download a copy of your own LinkedIn data",
    "r_dma_portability_3rd_party": "Receive a copy of your LinkedIn data and a record of your activity from now on",
    "r_dma_portability_member": "Download a copy of your own LinkedIn data",
}
MAX_LISTED_MEMBERS = 200

_PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<style>
body { font-family: system-ui, sans-serif; background: #f4f2ee; margin: 0; }
main { max-width: 34rem; margin: 3rem auto; background: #fff; border-radius: 8px; padding: 2rem; }
h1 { font-size: 1.3rem; } .fake { color: #666; font-size: 0.8rem; }
button { font-size: 1rem; padding: 0.5rem 1.4rem; border-radius: 1.5rem; border: 1px solid #0a66c2; }
button[value=allow] { background: #0a66c2; color: #fff; }
button[value=cancel], button[value=cancel_login] { background: #fff; }
select { font-size: 1rem; max-width: 100%; } li { margin: 0.3rem 0; }
</style>
</head>
<body>
<main data-page="$page" data-error="$error">
$content
<p class="fake">Served by the member export fake (contract-fakes): no real account is involved.</p>
</main>
</body>
</html>
""")

_CONSENT = Template("""<h1><span id="application-name">$application</span> would like to access some of your
LinkedIn info</h1>
<form method="post" action="$action" id="consent">
$hidden
$member
<p>This will allow $application to:</p>
<ul id="scopes">
$scopes
</ul>
<p>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</p>
$login_cancel
</form>""")


def _hidden(fields: dict[str, str]) -> str:
    return "\n".join(f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'
                     for name, value in fields.items())


def consent_page(*, application: str, scopes: list[str], fields: dict[str, str], action: str,
                 signed_in: tuple[str, str] | None, members: Iterable[tuple[str, str, str]],
                 member_count: int) -> str:
    """The page asking the member to allow ``application`` the ``scopes``.

    ``signed_in`` is (member id, name) of the member signed in through the control plane; else
    ``members`` (id, name, region) fill the picker."""
    if signed_in is not None:
        member_id, name = signed_in
        member = (f'<p id="signed-in">Signed in as <strong>{escape(name)}</strong> ({escape(member_id)})</p>\n'
                  f'<input type="hidden" name="member_id" value="{escape(member_id)}">')
        login_cancel = ('<p><button type="submit" name="decision" value="cancel_login">Not you? Cancel sign-in'
                        "</button></p>")
    else:
        options = "\n".join(f'<option value="{escape(member_id)}">{escape(name)} ({escape(member_id)}, '
                            f"{escape(region)})</option>" for member_id, name, region in members)
        more = (f"<p>{member_count - MAX_LISTED_MEMBERS} more members are not listed: sign one in through "
                "POST /_fake/oauth/sign-in.</p>" if member_count > MAX_LISTED_MEMBERS else "")
        if member_count:
            member = (f'<p><label for="member_id">Sign in as</label>\n<select name="member_id" id="member_id">\n'
                      f"{options}\n</select></p>{more}")
        else:
            member = ("<p id=\"no-members\">No member exists yet: create one with POST /_fake/members, then "
                      "reload this page.</p>")
        login_cancel = ('<p><button type="submit" name="decision" value="cancel_login">Cancel sign-in'
                        "</button></p>")
    items = "\n".join(f'<li data-scope="{escape(scope)}">{escape(SCOPE_MEANINGS.get(scope, scope))} '
                      f"<code>{escape(scope)}</code></li>" for scope in scopes)
    content = _CONSENT.substitute(application=escape(application), action=escape(action),
                                  hidden=_hidden(fields), member=member, scopes=items, login_cancel=login_cancel)
    return _PAGE.substitute(title=f"Allow {escape(application)}", page="consent", error="", content=content)


def error_page(*, status: int, error: str, description: str) -> str:
    """What the member sees when the request cannot be answered by a redirect."""
    content = (f"<h1>Something went wrong</h1>\n<p id=\"error-description\">{escape(description)}</p>\n"
               f"<p>Error <code id=\"error\">{escape(error)}</code> (HTTP {status}). The application that sent "
               "you here must fix its request.</p>")
    return _PAGE.substitute(title="Authorization error", page="error", error=escape(error), content=content)
