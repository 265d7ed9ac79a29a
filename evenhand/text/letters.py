"""The frame of a letter a reply drafts: its salutation ("Dear Ms. Okafor,", "Hola María,") and its sign-off
("Kind regards,", "Saludos,").

Two readers need it. The refusal detector reads a drafted letter as text the user asked for, not as the assistant
declining (:mod:`evenhand.scorers.refusal`), from its salutation to its sign-off. The sentiment comparison reads a
letter without its frame (:func:`letter_body`): the formulas are not the reply's tone, and a lexicon scores them
unevenly ("Dear" +1.6, "Sincerely" +2.1 and "Kind regards" +2.4 in VADER; "Hola" and "Saludos" 0), so a fair model that
greets each person in their language ("Hola María," for the hispanic version, "Dear Emily," for the white one) read as
colder to the hispanic version (review12).

A salutation opens with a common greeting, in English and in the languages a model mirrors for the person it writes
to, or is the name alone as the versions' replies are compared (their names masked: "[NAME],", "Ms. [NAME]:").
"""

from __future__ import annotations

import re

__all__ = ["SALUTATION", "SIGN_OFF", "letter_body"]

_GREETINGS = (
    "dear", "hi", "hello", "hey", "greetings", "good (?:morning|afternoon|evening|day)",
    "hola", "estimad[oa]s?", "querid[oa]s?", "apreciad[oa]s?", "distinguid[oa]s?", "buen(?:os|as) (?:días|dias|tardes)",
    "olá", "ola", "oi", "prezad[oa]s?", "car[oa]", "bom dia", "boa tarde",
    "bonjour", "bonsoir", "salut", "cher", "chère", "chers", "madame", "monsieur",
    "hallo", "liebe[rs]?", "sehr geehrte[rs]?", "guten (?:tag|morgen)",
    "ciao", "salve", "gentile", "gentilissim[oa]", "buongiorno",
    "namaste", "salaam", "salam", "as-?salamu? (?:alaikum|alaykum)", "shalom", "marhaba", "merhaba", "xin chào",
    "chào", "kia ora", "aloha", "jambo", "hej", "hoi",
)  # fmt: skip
#: A line that opens a letter: a greeting and up to 60 characters ("Dear Ms. Okafor,", "Estimada Sra. García:"), or
#: the masked name alone.
SALUTATION = re.compile(
    rf"^\s*(?:(?:{'|'.join(_GREETINGS)})\b[^\n]{{0,60}}"
    r"|(?:(?:mr|mrs|ms|mx|miss|dr|prof)\.?\s+)?\[name\])[,:]\s*$",
    re.IGNORECASE,
)
#: A line that closes a letter ("Kind regards,", "With kind regards,", "Best wishes, and thank you, Emily",
#: "Atentamente,"), in the languages of the greetings. "With ..." forms are English only and short like the others
#: ("With best wishes for your recovery, we have extended ..." runs past the 30 characters a sign-off may add).
SIGN_OFF = re.compile(
    r"^\s*(?:sincerely|best(?: regards| wishes)?|kind regards|warm(?:est)? (?:regards|wishes)|warmly|regards"
    r"|respectfully|with (?:(?:kind|best|warm(?:est)?|warm best) )?(?:regards|wishes)"
    r"|all the best|cheers|take care|many thanks|yours(?: sincerely| truly| faithfully)?"
    r"|thank you|thanks"
    r"|saludos|atentamente|cordialmente|un (?:saludo|abrazo)|cordialement|bien (?:à|a) (?:vous|toi)|amitiés"
    r"|mit freundlichen grüßen|(?:viele|liebe|beste) grüße|cordiali saluti|distinti saluti|atenciosamente|abraços)"
    r"\b[^\n]{0,30}[,.!]?\s*$",
    re.IGNORECASE,
)
#: The signature below a sign-off: at most this many short lines that are not sentences ("The hiring team", "[NAME]",
#: "Dr. Hale").
_SIGNATURE_LINES = 2
_SIGNATURE = re.compile(r"^[^\n]{1,40}(?<![.!?])$")


def letter_body(text: str, *, signature: bool = True) -> str:
    """``text`` without its letter frame: the salutation when it is the first line with words and more follow, and
    the sign-off when only a signature follows it (:data:`_SIGNATURE_LINES` short lines that are not sentences: a
    name, masked or not, or a team; the signature is kept, unless ``signature`` is False: the similarities compare
    what two letters say, and "El equipo" / "The team" is a formula in the person's language too). A text with no
    frame is returned as it is.

    >>> letter_body("Hola [NAME],\\n\\nYour card is on its way.\\n\\nSaludos,\\nThe team")
    '\\nYour card is on its way.\\n\\nThe team'
    >>> letter_body("Thanks!")
    'Thanks!'
    """
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 2:
        return text
    drop = set()
    signed: list[int] = []
    for back, i in enumerate(reversed(filled[1:])):  # from the end: the signature, then the sign-off
        if SIGN_OFF.match(lines[i]):
            drop.add(i)
            if not signature:
                drop.update(signed)
            break
        if back >= _SIGNATURE_LINES or not _SIGNATURE.match(lines[i].strip()):
            break
        signed.append(i)
    if SALUTATION.match(lines[filled[0]]):
        drop.add(filled[0])
    if not drop:
        return text
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)
