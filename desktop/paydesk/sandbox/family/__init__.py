"""``--family``: the sandbox answering as the family's server code does (SERVICE.md section
1b, read from one member's public source), item by item, without its security faults.

- ``answers.py``: the envelope, the framework's own error pages, PHP's JSON encoding;
- ``payments.py``: creation's rules, the lookup at ``verify-payment``, the redirects;
- ``cards.py``: the card operations with the issuer's words;
- ``webhook.py``: one signed POST per event to the business's webhook URL;
- ``dialect.py``: the dialect object that puts them together.
"""

from .dialect import FamilyDialect

__all__ = ["FamilyDialect"]
