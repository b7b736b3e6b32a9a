"""What a user's text says to the guard (`Guard.new_turn(text)`): the digests of its words.

The guard never keeps a user's text: `SecretSanitizer` runs over it, its words are cut to a
short stem and each stem is kept as a 4-byte digest. That is enough for the one question the
guard asks of a user turn: does it ask anything new? A text whose every word is a stop word,
a word of a ping ("any update?", "hello?", "still waiting", "are you there?") or a word of
the request it follows up ("is it cancelled yet?" after "cancel my order") asks nothing new;
a question with a word the request did not have ("question 2" after "question 1", "and a
semaphore?" after "what is a mutex?") is a new request.
"""

from __future__ import annotations

import hashlib
import re

from crs.guard._canon import _STOP

# Words that ask for nothing by themselves: greetings, acknowledgements, asking for status,
# waiting, asking again, the words that name "the request" without saying what it is (task,
# question, work), pieces of contractions. (English; a text in another language has words of
# its own.)
_PING_WORDS = (
    "hello hi hey hiya yo ok okay k kk yes yeah yep yup no nope nah sure fine great good "
    "cool nice alright right thanks thank thx ty please pls plz sorry any anything "
    "something update updates news status progress done finished finish complete completed "
    "ready yet still wait waiting waited there here anyone someone know let tell say said "
    "now soon long again try retry go going on continue continuing keep happening happened "
    "confirm check checking well so just can could would will should be been being have has "
    "had get got respond reply answer up hurry quick quickly already then also am were im u "
    "r ur hm hmm uh um oh ah eh huh wow lol hear heard back response responded responding "
    "answered replied regarding request requested task job work working worked question "
    "issue problem thing things matter take taking took time eta minute minutes hour hours "
    "much more need needed want wanted give send show through finally earlier before ago "
    "ask asked asking forgot forget situation don t didn doesn isn wasn won ll ve re d m "
    "bye goodbye"
)
_PING = frozenset(_PING_WORDS.split(" "))
# A word: one ideograph, kana or hangul syllable (scripts written without spaces), or a run
# of other letters and digits.
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+")
STEM = 5  # a word is compared by its first STEM characters ("cancelled", "cancellation")
MAX_WORDS = 64  # digests kept of one text
MAX_ASK = 256  # digests kept of the request a run of turns follows up


def _digest(stem: str) -> str:
    return hashlib.blake2b(stem.encode(), digest_size=4, person=b"crs.turn").hexdigest()


def words(text: str) -> list[str]:
    """The sorted digests of the stems of `text`'s words that ask for something (stop words
    and ping words left out); at most `MAX_WORDS` of them. `text` should be sanitized."""
    out: set[str] = set()
    for w in _WORD.findall(text[:100_000].lower()):
        if w in _STOP or w in _PING:
            continue
        out.add(_digest(w[:STEM]))
        if len(out) >= MAX_WORDS:
            break
    return sorted(out)


def asks_nothing_new(digests: list[str], ask: frozenset[str]) -> bool:
    """Whether a text with these word digests only follows up the request `ask` (the digests
    of the last text that asked something): no word of its own."""
    return all(d in ask for d in digests)
