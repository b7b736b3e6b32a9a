# ruff: noqa: RUF001, RUF002  (real phrases in Cyrillic, Chinese and Japanese, their punctuation)
"""`Guard.new_turn(text)` in other languages: a user's ping ("¿alguna novedad?", "ça avance
?", "有更新吗？", "まだですか？") asks nothing new, as "any update?" does, so the same answer to
it again and again is a monologue; a real new question (another order, another topic) is a
new request in every language."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crs.guard import Action, Guard, Verdict, VerdictCode, _turns

WAIT = "I am still working on completing the task right now, please wait a little longer."

# language: (the request, pings, follow-ups naming the request, new questions)
LANGUAGES: dict[str, tuple[str, list[str], list[str], list[str]]] = {
    "es": (
        "Cancela mi pedido 5521 y devuélveme el dinero a la tarjeta.",
        [
            "¿Alguna novedad?",
            "¿Hola? ¿Sigues ahí?",
            "Inténtalo de nuevo, por favor",
            "¿Ya está listo?",
            "¿Cuánto falta?",
            "Sigo esperando respuesta",
        ],
        ["¿Ya está cancelado el pedido?", "¿Y el dinero de la tarjeta?"],
        [
            "¿Y el pedido 7730?",
            "¿Cuánto cuesta el envío a Madrid?",
            "¿Puedo cambiar la dirección de entrega?",
        ],
    ),
    "fr": (
        "Annule ma commande 5521 et rembourse-moi sur ma carte.",
        [
            "Du nouveau ?",
            "Des nouvelles ?",
            "Alors, ça avance ?",
            "Tu es là ?",
            "J'attends toujours une réponse",
            "Réessaie encore une fois, s'il te plaît",
        ],
        ["C'est annulé ?", "La commande est annulée ?"],
        [
            "Et la commande 7730 ?",
            "Quel temps fait-il à Paris ?",
            "Peux-tu changer l'adresse de livraison ?",
        ],
    ),
    "de": (
        "Storniere meine Bestellung 5521 und erstatte den Betrag auf meine Karte.",
        [
            "Gibt es Neuigkeiten?",
            "Hallo? Bist du noch da?",
            "Wie weit bist du?",
            "Ich warte immer noch",
            "Versuch es bitte nochmal",
            "Wie lange dauert das noch?",
        ],
        ["Ist die Bestellung schon storniert?", "Ist der Betrag erstattet?"],
        [
            "Und die Bestellung 7730?",
            "Wie installiere ich Python?",
            "Kannst du die Lieferadresse ändern?",
        ],
    ),
    "pt": (
        "Cancele meu pedido 5521 e devolva o dinheiro no cartão.",
        [
            "Alguma novidade?",
            "Oi, tá aí?",
            "Tente de novo, por favor",
            "Já terminou?",
            "Ainda estou esperando",
            "Quanto tempo falta?",
        ],
        ["Já cancelou o pedido?", "O dinheiro foi devolvido?"],
        ["E o pedido 7730?", "Qual é a capital da França?", "Posso mudar o endereço de entrega?"],
    ),
    "ru": (
        "Отмени мой заказ 5521 и верни деньги на карту.",
        [
            "Есть новости?",
            "Ну что там?",
            "Ты здесь?",
            "Попробуй ещё раз, пожалуйста",
            "Я всё ещё жду",
            "Сколько ещё ждать?",
        ],
        ["Заказ уже отменён?", "А деньги?"],
        ["А заказ 7730?", "Как установить Python?", "Можно изменить адрес доставки?"],
    ),
    "zh": (
        "请取消我的订单5521，并把钱退到我的卡上。",
        [
            "有更新吗？",
            "在吗？",
            "怎么样了？",
            "请再试一次",
            "还要多久？",
            "我在等着呢",
            "进展如何？",
        ],
        ["订单取消了吗？", "钱退了吗？"],
        ["订单7730呢？", "怎么安装Python？", "第二个问题呢？", "可以修改收货地址吗？"],
    ),
    "ja": (
        "注文5521をキャンセルして、カードに返金してください。",
        [
            "まだですか？",
            "進捗はどうですか？",
            "もしもし？",
            "もう一度お願いします",
            "まだ待っています",
            "どうなりましたか？",
        ],
        ["注文はキャンセルされましたか？", "返金はまだですか？"],
        [
            "注文7730は？",
            "Pythonのインストール方法は？",
            "東京の天気は？",
            "配送先の住所を変更できますか？",
        ],
    ),
    "it": (
        "Annulla il mio ordine 5521 e rimborsami sulla carta.",
        ["Novità?", "Ci sei?", "Riprova per favore", "Ancora niente?", "Quanto manca?"],
        ["L'ordine è annullato?"],
        ["E l'ordine 7730?", "Come installo Python?"],
    ),
}
IDS = sorted(LANGUAGES)


def follows_up(request: str, text: str) -> bool:
    return _turns.asks_nothing_new(_turns.words(text), frozenset(_turns.words(request)))


def chat(g: Guard, turns: Sequence[tuple[str, str]]) -> list[Verdict]:
    out = []
    for text, answer in turns:
        g.new_turn(text)
        out.append(g.on_message(answer))
    return out


@pytest.mark.parametrize("lang", IDS)
def test_pings_and_follow_ups_ask_nothing_new(lang: str) -> None:
    request, pings, follow_ups, _ = LANGUAGES[lang]
    for text in pings + follow_ups:
        assert follows_up(request, text), text


@pytest.mark.parametrize("lang", IDS)
def test_new_questions_are_new_requests(lang: str) -> None:
    request, _, _, questions = LANGUAGES[lang]
    for text in questions:
        assert not follows_up(request, text), text


@pytest.mark.parametrize("lang", IDS)
def test_the_same_answer_to_pings_is_a_monologue(lang: str) -> None:
    request, pings, _, _ = LANGUAGES[lang]
    vs = chat(Guard(), [(request, WAIT), *((p, WAIT) for p in pings[:3])])
    assert [v.action for v in vs] == [Action.ALLOW, Action.ALLOW, Action.NUDGE, Action.BLOCK]
    assert vs[2].code is VerdictCode.MONOLOGUE
    assert "user turns" in vs[2].reason


@pytest.mark.parametrize("lang", IDS)
def test_new_questions_answered_alike_are_a_chat(lang: str) -> None:
    request, _, _, questions = LANGUAGES[lang]
    answer = "Sure, happy to help with that. Let me know what else you need from me today."
    vs = chat(Guard(), [(request, answer), *((q, answer) for q in questions)])
    assert all(v.action is Action.ALLOW for v in vs)


def test_a_ping_in_another_language_than_the_request() -> None:
    request = "Please cancel my order #5521 and refund it to my card."
    for lang in IDS:
        for ping in LANGUAGES[lang][1]:
            assert follows_up(request, ping), (lang, ping)


def test_english_words_that_look_like_foreign_pings_stay_words() -> None:
    """Words of other languages' pings that are English content words (AI, son, logo, OS,
    tag, MIT, SIM) are not taken for pings."""
    request = "Summarise the release notes."
    for text in [
        "And the AI?",
        "What about my son?",
        "The logo?",
        "Which OS?",
        "And the tag?",
        "Is it MIT?",
        "And the SIM?",
        "And the van?",
        "What about Ben?",
        "Plus tax?",
    ]:
        assert not follows_up(request, text), text


def test_accents_and_full_width_forms_are_folded() -> None:
    assert _turns.words("¿Qué tal? TODAVÍA") == _turns.words("que tal todavia") == []
    assert _turns.words("ｐｙｔｈｏｎ") == _turns.words("python")
    assert _turns.words("ещё") == _turns.words("еще") == []


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(IDS),
    picks=st.lists(st.integers(0, 20), min_size=1, max_size=4),
)
def test_any_mix_of_a_languages_pings_asks_nothing_new(lang: str, picks: list[int]) -> None:
    request, pings, follow_ups, _ = LANGUAGES[lang]
    said = pings + follow_ups
    text = " ".join(said[i % len(said)] for i in picks)
    assert follows_up(request, text)


CONTENT = {
    "es": ["factura", "contraseña", "reembolso", "garantía"],
    "fr": ["facture", "mot de passe", "garantie", "livraison"],
    "de": ["Rechnung", "Passwort", "Garantie", "Lieferung"],
    "pt": ["fatura", "senha", "garantia", "entrega"],
    "ru": ["счёт", "пароль", "гарантия", "доставка"],
    "zh": ["发票", "密码", "保修", "地址"],
    "ja": ["請求書", "パスワード", "保証", "住所"],
    "it": ["fattura", "password", "garanzia", "consegna"],
}


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(IDS),
    ping=st.integers(0, 20),
    word=st.integers(0, 3),
    before=st.booleans(),
)
def test_a_content_word_makes_a_ping_a_new_request(
    lang: str, ping: int, word: int, before: bool
) -> None:
    request, pings, _, _ = LANGUAGES[lang]
    p, w = pings[ping % len(pings)], CONTENT[lang][word]
    text = f"{w} {p}" if before else f"{p} {w}"
    assert not follows_up(request, text), text
