# ruff: noqa: RUF001  (Russian words, Cyrillic letters that look Latin)
"""What a user's text says to the guard (`Guard.new_turn(text)`): the digests of its words.

The guard never keeps a user's text: `SecretSanitizer` runs over it, its words are cut to a
short stem and each stem is kept as a 4-byte digest. That is enough for the one question the
guard asks of a user turn: does it ask anything new? A text whose every word is a stop word,
a word of a ping ("any update?", "hello?", "still waiting", "are you there?") or a word of
the request it follows up ("is it cancelled yet?" after "cancel my order") asks nothing new;
a question with a word the request did not have ("question 2" after "question 1", "and a
semaphore?" after "what is a mutex?") is a new request. The pings and function words are
English, Spanish, French, German, Portuguese, Italian, Russian, Chinese and Japanese ones
("¿alguna novedad?", "ça avance ?", "有更新吗", "まだですか"), matched without accents.

It also holds what the guard keeps of an agent's message to compare the next one with, in
any process: a b-bit MinHash sketch, sentence digests and word digests.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from crs.guard._canon import _STOP

_MARKS = re.compile("[\u0300-\u036f]")  # the accents of Latin, Greek and Cyrillic letters


def _fold(text: str) -> str:
    """`text` lower-cased, with full-width forms as their plain ones and the accents of
    Latin, Greek and Cyrillic letters left out ("Qué" as "que", "ещё" as "еще"); kana keep
    their voicing marks."""
    text = unicodedata.normalize("NFKD", text.lower())
    return unicodedata.normalize("NFC", _MARKS.sub("", text))


# Words that ask for nothing by themselves: greetings, acknowledgements, asking for status,
# waiting, asking again, the words that name "the request" without saying what it is (task,
# question, work), pieces of contractions, and the function words of each language (English's
# are `_canon._STOP`). Matched without accents ("todavía" as "todavia", "ещё" as "еще").
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
_PING_ES = (
    "hola buenas buenos dias tardes noches gracias vale si no bueno bien perfecto genial claro "
    "ya todavia aun alguna algun alguno algo novedad novedades noticias actualizacion "
    "actualizaciones estado progreso avance avances listo terminado terminada "
    "terminaste acabaste acabado hecho sigues sigue seguimos estas esta estan hay que como "
    "va vas esto eso ese esa ahi alli alguien puedes podrias puede intenta intentalo "
    "intentar reintenta continua continuar sigo espero esperando esperar cuanto falta tiempo "
    "mucho tarda tardas rapido pronto respuesta responde responder contesta contestame dime "
    "decir avisame avisa tarea trabajo pregunta problema asunto cosa solicitud "
    "el la los las lo le les un una unos unas de del al a en con para por y o u pero se su "
    "sus mi mis tu tus te me nos es fue ser estar he has ha hemos han hace usted "
    "yo ok oye porfa entonces ahora aqui ya nada estoy"
)
_PING_FR = (
    "bonjour bonsoir salut coucou allo merci oui non ok accord bien super parfait genial "
    "alors nouvelles nouveautes news jour etat statut avancement progres ca avance avancee "
    "fini finie termine terminee pret prete deja encore toujours attends attend attendre "
    "attente la y es tu etes vous quelqu un une combien temps reste longtemps "
    "bientot vite reessaie reessayer reessayez recommence essaie essayer fois continue "
    "continuer vas go reponds repondre reponse dis dites moi tache demande question "
    "probleme truc chose travail le les de du des et ou mais que qui quoi est sont a as "
    "avez avoir etre je j il elle nous ce cet cette c se s sa ses mon ma mes ta tes "
    "par sur dans en avec pas ne n rien tout bon bah euh hein l d qu m t "
    "maintenant on ici voila donc sil plait svp stp"
)
_PING_DE = (
    "hallo hi hey moin servus guten morgen abend danke bitte ok okay ja nein gut super "
    "prima klar gibt es neuigkeiten neues update updates status fortschritt fertig "
    "schon noch immer warte warten wartest da bist du sie ihr jemand wie siehts sieht aus "
    "weit lange dauert dauern brauchst mal nochmal erneut versuch versuche versuchs "
    "probier probiers weiter weitermachen mach machen antwort antworte melde dich bescheid "
    "sag sagen aufgabe frage problem sache auftrag jetzt endlich bald schnell und oder aber "
    "der die das den dem des ein eine einen einem ist sind war hat haben hast habe ich mir "
    "mich wir uns was wann wo los denn doch nun also so auch hier dort bei von zu zum "
    "zur im am an auf fur um kannst kann konntest nichts"
)
_PING_PT = (
    "ola oi bom boa dia tarde noite obrigado obrigada valeu ok nao beleza certo ta "
    "alguma algum novidade novidades noticias atualizacao atualizacoes status estado "
    "progresso andamento pronto pronta terminou acabou concluido concluida ja ainda "
    "esperando espero aguardando aguardo esta alguem tem ha como vai anda quanto falta "
    "tempo demora rapido tente tenta tentar novamente continua continue continuar "
    "segue responde responda resposta me diga fala avisa tarefa pergunta problema coisa "
    "trabalho o a as um uma de do da das e ou mas que e sao foi eu voce vc ele ela "
    "nos isso isto esse essa por favor para pra em no na mais so entao agora aqui nada estou "
    "estamos"
)
_PING_IT = (
    "ciao salve buongiorno buonasera grazie ok si no bene perfetto certo allora novita "
    "aggiornamento aggiornamenti stato progresso avanzamento pronto finito fatto gia ancora "
    "aspetto aspettando sei qualcuno quanto manca tempo presto riprova riprovare "
    "continua rispondi risposta dimmi compito domanda problema cosa lavoro il lo la i gli "
    "le un una di del della e o ma che chi come e sono era io tu lui lei noi voi per con in "
    "su da non piu ora adesso qui favore niente nulla"
)
_PING_RU = (
    "привет здравствуите здравствуи добрыи день вечер утро алло спасибо пожалуиста ок "
    "океи да нет хорошо ладно ну что как там дела есть новости новое обновления "
    "обновление апдеит статус прогресс готово готов закончил закончили уже еще все жду "
    "ждем ждать ты вы здесь тут кто нибудь сколько долго времени скоро быстрее "
    "побыстрее попробуи попробуите снова опять раз продолжаи продолжаите даваи ответь "
    "ответьте ответ скажи скажите сообщи задача задачеи задачу задание вопрос проблема "
    "работа дело и а но или в на с по к у о об от до за из я мне меня мы он она оно они "
    "это этот эта то так же ли не ни бы был была было будет там сеичас теперь ничего"
)
# Ping phrases taken out before the words are read: several words that together ask for
# nothing ("de nuevo" is "again", while "nuevo" alone is "new"), and the pings of scripts
# written without spaces (Chinese, Japanese), whose words cannot be split reliably.
_PING_PHRASES = (
    # spaced languages (matched as whole words, without accents)
    "de nuevo|otra vez|du nouveau|quoi de neuf|guten tag|ta ai|esta ai|por favor|que tal|"
    "como va|como vas|hay novedades|"
    "s il vous plait|s il te plait|mise a jour|mises a jour|du coup|a nouveau|de nouveau|"
    "ca avance|ou en est|ou en es|noch mal|wie weit|wie lange|gibt es was|"
    "de novo|outra vez|por favor|e ai|como esta|como anda|di nuovo|ci sei|per favore|"
    "еще раз|как дела|что там|есть новости|ну что|"
    # Chinese
    "有什么进展|有没有进展|有进展吗|进展如何|进展怎么样|进度怎么样|进度如何|怎么样了|怎么样|"
    "有更新吗|有没有更新|更新|进展|进度|状态|情况|有消息吗|有结果吗|结果呢|好了吗|好了没|"
    "完成了吗|做完了吗|弄好了吗|搞定了吗|还没好吗|还没有|还没|还在吗|在吗|在不在|你好|您好|"
    "哈喽|喂|怎么回事|怎么了|谢谢|多谢|请继续|继续|再试一次|再试试|再来一次|重试|快点|赶紧|"
    "我在等|等着|等待|"
    "等一下|还要多久|多久|现在|已经|到底|请问|麻烦|任务|问题|请|吗|呢|吧|啊|呀|嘛|啦|哦|嗯|"
    # Japanese
    "どうなりましたか|どうなった|どうですか|どう|まだですか|まだ|進捗はどうですか|進捗|状況|"
    "状態|ステータス|アップデート|更新|終わりましたか|終わった|完了しましたか|完了|できましたか|"
    "こんにちは|こんばんは|おはようございます|もしもし|ありがとうございます|ありがとう|"
    "お願いします|お願い|よろしく|もう一度|もういちど|再試行|続けてください|続けて|続き|"
    "聞こえますか|いますか|大丈夫ですか|大丈夫|すみません|待っています|待ってます|待って|"
    "いつ|まだかな|タスク|質問|今"
)
_CJK_STOP = frozenset(
    # Chinese function characters
    "的了着过是我你您他她它们在有和与这那个一不也都就还又很太么没把被给对从向跟"
)
_PING = frozenset(
    _fold(w)
    for words in (_PING_WORDS, _PING_ES, _PING_FR, _PING_DE, _PING_PT, _PING_IT, _PING_RU)
    for w in words.split(" ")
)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
# A word: a run of hiragana, a run of katakana (`ー` included), one ideograph or hangul
# syllable, or a run of other letters and digits.
_WORD = re.compile(
    "[\u3041-\u309f]+|[\u30a0-\u30ff\uff66-\uff9f]+"
    "|[\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
    f"|[^\\W_{_CJK}]+"
)
_HIRAGANA = re.compile("[\u3041-\u309f]+").fullmatch


def _phrases() -> re.Pattern[str]:
    spaced: list[str] = []
    cjk: list[str] = []
    for p in _PING_PHRASES.split("|"):
        (cjk if re.search(f"[{_CJK}]", p) else spaced).append(_fold(p))
    spaced.sort(key=len, reverse=True)
    cjk.sort(key=len, reverse=True)
    words = "|".join(re.escape(p).replace("\\ ", "\\W+") for p in spaced)
    return re.compile(f"(?<!\\w)(?:{words})(?!\\w)|{'|'.join(map(re.escape, cjk))}")


_PHRASES = _phrases()
STEM = 5  # a word is compared by its first STEM characters ("cancelled", "cancellation")
MAX_WORDS = 64  # digests kept of one text
MAX_ASK = 256  # digests kept of the request a run of turns follows up


def _digest(stem: str) -> str:
    return hashlib.blake2b(stem.encode(), digest_size=4, person=b"crs.turn").hexdigest()


def words(text: str) -> list[str]:
    """The sorted digests of the stems of `text`'s words that ask for something (stop words
    and ping words left out); at most `MAX_WORDS` of them. `text` should be sanitized."""
    out: set[str] = set()
    folded = _PHRASES.sub(" ", _fold(text[:100_000]))
    for w in _WORD.findall(folded):
        if w in _STOP or w in _PING or w in _CJK_STOP or _HIRAGANA(w) is not None:
            continue  # (a run of hiragana is Japanese grammar: particles, endings)
        out.add(_digest(w[:STEM]))
        if len(out) >= MAX_WORDS:
            break
    return sorted(out)


def asks_nothing_new(digests: list[str], ask: frozenset[str]) -> bool:
    """Whether a text with these word digests only follows up the request `ask` (the digests
    of the last text that asked something): no word of its own."""
    return all(d in ask for d in digests)


# ---------------------------------------------------------------- an agent's last message

MAX_MSG_WORDS = 128  # word digests kept of one agent message
# A reply that says this many things (its distinct content words: stems, stop words left
# out) is no stock phrase ("Done. Let me know if you need anything else." has 7, "Let me
# check that for you." 2): given word for word to new requests in a row, it is a canned
# reply that ignores what was asked (fresh17, fresh19, fresh21)
CANNED_WORDS = 12
MAX_CANNED = 1_000_000  # turns a canned reply is counted over (a record's bound)
SKETCH_BYTES = 128  # one byte of each of the 128 MinHash values (b-bit MinHash, b = 8)
MAX_SENTENCES = 32  # sentence digests kept of one message


def sketch(signature: bytes) -> str:
    """The compact form of a MinHash signature (`crs._core.minhash_signature`: 128
    little-endian u32) that the guard journals: the low byte of each value, as hex (256
    characters). Two texts' sketches agree where their signatures do, and by chance (1 in
    256) elsewhere: `sketch_similarity` corrects for it."""
    return signature[::4].hex()


def sketch_similarity(a: str, b: str) -> float:
    """The Jaccard similarity two sketches estimate (0 for a malformed or empty one)."""
    try:
        x, y = bytes.fromhex(a), bytes.fromhex(b)
    except ValueError:
        return 0.0
    if len(x) != SKETCH_BYTES or len(y) != SKETCH_BYTES:
        return 0.0
    equal = sum(1 for i, j in zip(x, y, strict=True) if i == j) / SKETCH_BYTES
    return max(0.0, (equal - 1 / 256) / (1 - 1 / 256))


def sentence_digests(sentences: set[str]) -> list[str]:
    """4-byte digests of a message's sentences, sorted, at most `MAX_SENTENCES`."""
    return sorted(
        hashlib.blake2b(t.encode(), digest_size=4, person=b"crs.sent").hexdigest()
        for t in sentences
    )[:MAX_SENTENCES]


_SUFFIXES = ("ing", "ed", "es", "s")


def stems(words: set[str]) -> set[str]:
    """`words` with the commonest English inflections cut (`swallows`, `swallowing`,
    `swallowed` are `swallow`; `reaches` is `reach`): a restatement of an agent's message in
    another tense or number says nothing new (fresh18). Words under five letters, and stems
    under three, stay as they are (`sees`, `was`); not a stemmer: `caches` is `cach`, which
    is only ever compared with other words cut alike."""
    out = set()
    for w in words:
        if len(w) >= 5 and w.isalpha():
            for suf in _SUFFIXES:
                if w.endswith(suf) and len(w) - len(suf) >= 3:
                    w = w[: -len(suf)]
                    break
        out.add(w)
    return out


def word_digests(words: set[str]) -> list[str]:
    """4-byte digests of an agent message's words, sorted, at most `MAX_MSG_WORDS` (a long
    message is judged by a sample of its words that is the same in every process)."""
    return sorted(
        hashlib.blake2b(w.encode(), digest_size=4, person=b"crs.word").hexdigest() for w in words
    )[:MAX_MSG_WORDS]


# A user turn that asks for the same thing a number of times ("call the current_time plugin
# 10 times", "run the test five times to see if it is flaky", "ping it twice"): that many
# runs of one call within the turn are the task, not a loop (`Guard.new_turn`). English
# number words and digits; only with a verb that asks for an action before the count in the
# same sentence, and not when the count is a complaint ("I told you 3 times").
_NUMBER_WORDS = {
    "twice": 2,
    "thrice": 3,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
    "a dozen": 12,
    "dozen": 12,
}
_COUNT = (
    r"(?P<n>\d{1,4}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|fifty|hundred|a dozen|dozen)"
)
_ACT = (
    r"call|run|re-?run|execute|exec|invoke|repeat|do|check|fetch|get|read|query|ping|poll|"
    r"test|try|print|output|send|generate|roll|flip|sample|measure|time|benchmark|request|"
    r"hit|load|refresh|reload|click|press|tap|submit|post|retry|loop|iterate"
)
_REPEATS = re.compile(
    rf"(?i)\b(?P<act>{_ACT})\b[^.!?\n]{{0,80}}?(?:\b{_COUNT}\s+(?:more\s+)?"
    r"(?:times|runs|iterations|rounds)\b|\b(?P<w>twice|thrice)\b)"
)
_COMPLAINT = re.compile(
    r"(?i)\b(told|asked|said|already|tried|been|have|has|had|keep|kept|stop|don'?t|do not|"
    r"never|instead of|why)\b"
)
MAX_ASKED_REPEATS = 49  # (the 50th run in a row is `HARD_MAX_REPEATS`: no turn lifts the bound)


def repeats_asked(text: str) -> int:
    """How many runs of one call the user's `text` asks for ("run it 5 times": 5), at most
    `MAX_ASKED_REPEATS`; 0 when it asks for no count."""
    if len(text) > 4000:
        text = text[:4000]
    best = 0
    for m in _REPEATS.finditer(text):
        word = (m.group("n") or m.group("w") or "").lower()
        n = int(word) if word.isdigit() else _NUMBER_WORDS.get(word, 0)
        if n < 2:
            continue
        start = text.rfind(".", 0, m.start()) + 1
        if _COMPLAINT.search(text, start, m.end()) is not None:
            continue
        best = max(best, n)
    return min(best, MAX_ASKED_REPEATS)
