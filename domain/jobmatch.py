"""Job-ad matching: which field, level and topics a pasted job ad asks for, offline.

A BM25 model built from the bank itself (topic names, keywords, question bodies and explanations in
both languages) plus a small per-field vocabulary of job-ad words (jobmatch_vocabulary.yaml).
English and Turkish share one normaliser: Turkish casing (İ/i, I/ı), diacritics and suffixes.
"""

from __future__ import annotations

import heapq
import math
import re
import threading
import unicodedata
import weakref
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import yaml

from domain.numbers import parse_number
from questions.loader import Bank
from questions.model import LEVELS
from questions.yamlfast import SafeLoader

VOCABULARY = Path(__file__).with_name("jobmatch_vocabulary.yaml")
# Most ads that name no level hire at mid level; the user can change it with /level.
DEFAULT_LEVEL = "mid"
TOPICS_SHOWN = 5
WORDS_SHOWN = 4
WORDS_MIN_SHARE = 0.25  # of the strongest word's weight
WORDS_MAX_LENGTH = 40  # a phrase spread over a long stretch of the ad is not shown

# Model weights, tuned on tests/jobmatch/ads.yaml (see the README for the figures).
K1_CURATED, B_CURATED = 1.2, 0.3
K1_TEXT, B_TEXT = 1.2, 0.5
W_PART = 0.3  # a single word of a keyword phrase, against the whole phrase
W_TEXT = 0.3  # question text against curated words
TITLE_BOOST = 2.0
MAX_N = 3
STEM_LENGTH = 6
# Evidence (whole curated terms of one field, BM25-weighted) an ad needs before it is matched at
# all, and per square root of its length (a long text collects chance words).
MIN_EVIDENCE = 6.0
MIN_EVIDENCE_DENSITY = 1.5

# Term -> weight in a document (a float, unlike Counter's counts).
Weights = defaultdict[str, float]


# ---------------------------------------------------------------------------------------------
# Normalisation


class _FoldTable(dict):
    """str.translate table: lower case, Turkish dotted/dotless i and diacritics to ASCII, 1:1."""

    TURKISH = {"İ": "i", "I": "i", "ı": "i", "Ş": "s", "ş": "s", "Ğ": "g", "ğ": "g", "Ç": "c",
               "ç": "c", "Ö": "o", "ö": "o", "Ü": "u", "ü": "u", "’": "'", "‘": "'", "–": "-",
               "—": "-"}

    def __missing__(self, code: int) -> str:
        char = chr(code)
        folded = self.TURKISH.get(char)
        if folded is None:
            low = char.lower()
            folded = low if len(low) == 1 else char
            base = unicodedata.normalize("NFKD", folded)[:1]
            if base and base.isascii() and base.isalpha():
                folded = base
        self[code] = folded
        return folded


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """Lower-case ASCII-ish text of the same length (positions map back to the original)."""
    return text.translate(_FOLD)


# Words that say nothing about a field: English and Turkish function words and job-ad boilerplate
# (after folding, so Turkish is written without diacritics).
_STOPWORDS_EN = """
a an and are as at be been being but by can could do does for from has have how if in into is it
its may more most must not of on or our over per should so such than that the their them then there
these they this those through to up us was we were what when where which while who why will with
within without would you your yours also any all both each etc via able well new using use used
other only own same some very just about after before between during like make many much one two
three four five six seven eight nine ten year years yrs experience experienced strong good great
excellent solid deep knowledge understanding skills skill ability familiarity familiar plus bonus
nice preferred required requirements requirement responsibilities responsibility role position
job team teams company work working works looking candidate candidates join help build building
develop developing including include includes across based environment opportunity ideal high
part full time day days week benefits salary office remote hybrid location apply application
applications please send cv resume equal employer people product products customers customer
business world growing fast paced passionate motivated self communication english turkish written
verbal hands proven track record degree bachelor bachelors master masters university field related
equivalent practical professional minimum least years' year's software developer developers
engineer engineers engineering programmer specialist expert senior junior lead principal staff
intern internship trainee graduate manager clean write create creating maintain ensure support go
collaborate closely together day-to-day love enjoy want need needs offer offering tools
"""
_STOPWORDS_TR = """
ve veya ile ile icin bir bu su o da de ki mi gibi olan olarak olmak olan en az cok daha her tum
hem ya ise ama fakat ancak kadar sonra once uzerinde uzere icinde arasinda gore dair itibaren
yil yillik sene deneyim deneyimli tecrube tecrubeli bilgi bilgisi bilgili sahip tercih sebebi
nedeni aranan nitelikler nitelik genel is tanimi tanimi gorev gorevler sorumluluklar sorumluluk
aday adaylar ekip ekibimize ekibi takim takimimiza sirket sirketimiz firmamiz firma calisma
calismak calisacak calisabilecek arkadas arkadaslar arayisimiz ariyoruz ariyor katilacak
yetkinlik yetkin iyi derecede ileri duzeyde seviyede seviye guclu iletisim becerisi becerileri
universite universitelerin bolum bolumlerinden mezun lisans yuksek muhendisligi ingilizce
turkce askerlik tamamlamis muaf tecilli hizmet hizmetini avantaj saglayan imkan yan haklar
ofis hibrit uzaktan tam zamanli istanbul ankara izmir lokasyon konum maas prim olanlar olmasi
konusunda konularinda alaninda alanda ilgili yatkin istekli motive cozum odakli analitik
dusunme yetenegi proje projeler projelerde gelistirme surecleri sureclerine yazilim
gelistirici gelistiriciler muhendis muhendisi muhendisleri uzman uzmani kidemli stajyer staj
yeni mezunlar arkadasi arkadaslari ariyoruz olacaksin yapacaksin edeceksin dogru
"""
STOPWORDS = frozenset(_STOPWORDS_EN.split()) | frozenset(_STOPWORDS_TR.split())


_SUFFIXES = frozenset({
    # Turkish (after folding): plural, possessive, case and derivational endings.
    "lerin", "larin", "leri", "lari", "ler", "lar", "nin", "nun", "dan", "den", "tan", "ten", "da",
    "de", "ta", "te", "si", "su", "in", "un", "li", "lu", "lik", "luk", "ligi", "lugu", "yla",
    "yle", "la", "le", "ma", "me", "mak", "mek", "i", "u", "a", "e",
    # English: plurals and common verb/noun endings.
    "ing", "ings", "ed", "es", "s", "er", "ers", "ment", "ments", "ity", "ies", "ly",
})
_SUFFIX_LENGTHS = sorted({len(s) for s in _SUFFIXES}, reverse=True)


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A light shared stemmer: strip up to three endings, then keep a fixed-length prefix."""
    return strip_endings(word)[:STEM_LENGTH]


@lru_cache(maxsize=100_000)
def strip_endings(word: str) -> str:
    """A word without up to three endings, at full length: `indexes` and `indexing` give
    `index`, but `connect` and `connection` stay apart (their stems agree, the words do not)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for _ in range(3):
        for size in _SUFFIX_LENGTHS:
            keep = len(word) - size
            if keep >= 4 and word[keep:] in _SUFFIXES:
                word = word[:keep]
                break
        else:
            break
    return word


# Turkish verb forms (to do, will do, you will do...) carry no topic: "geliştirmek", "yapacaksın".
_VERB = re.compile(r"..(?:mak|mek|acak|ecek|acaksin|eceksin|abilen|ebilen|iyoruz|uyoruz)$")
_TOKEN = re.compile(r"(\.?[a-z0-9]+(?:\+\+|#)?)(?:'[a-z]+)?")
_SPECIAL = {"c++": "cpp", "c#": "csharp", "f#": "fsharp", ".net": "dotnet"}


class Token(NamedTuple):
    term: str
    start: int
    end: int


def tokenize(text: str, folded: str | None = None,
             stemmer: Callable[[str], str] | None = None) -> list[Token]:
    """Stemmed content words with their positions in `text` (stopwords and numbers dropped)."""
    stemmer = stemmer or stem
    folded = fold(text) if folded is None else folded
    out: list[Token] = []
    for match in _TOKEN.finditer(folded):
        word = match.group(1)
        start, end = match.span(1)
        if word in _SPECIAL:
            out.append(Token(_SPECIAL[word], start, end))
            continue
        word = word.lstrip(".").rstrip("+#")
        if word == "go" and text[start:end] == "Go":  # the language; "go" is the verb
            out.append(Token("golang", start, end))
            continue
        if len(word) < 2 or word.isdigit() or word in STOPWORDS or _VERB.search(word):
            continue
        out.append(Token(stemmer(word), start, end))
    return out


def word_forms(phrase: str) -> str:
    """A phrase's content words without their endings, at full length: what must agree for an
    ad's words to be evidence of a keyword (a shared stem alone is a fragment)."""
    return " ".join(t.term for t in tokenize(phrase, stemmer=strip_endings))


def ngrams(tokens: Sequence[Token], max_n: int = MAX_N) -> Iterable[tuple[str, int, int]]:
    """(term, start, end) for every run of 1..max_n consecutive tokens."""
    for i in range(len(tokens)):
        for n in range(1, max_n + 1):
            if i + n > len(tokens):
                break
            run = tokens[i : i + n]
            yield " ".join(t.term for t in run), run[0].start, run[-1].end


def phrase_terms(phrase: str) -> list[str]:
    return [t.term for t in tokenize(phrase)]


# ---------------------------------------------------------------------------------------------
# Level

_PEOPLE = (r"(?:engineers|developers|programmers|colleagues|members|teammates|peers|staff|"
           r"profiles|muhendisler|gelistiriciler|ekip arkadaslar|calisma arkadaslar|"
           r"meslektaslar|yazilimcilar)")
_LEVEL_WORDS = {
    "senior": r"senior|sr\.?|kidemli|tech lead|team lead|technical lead|lead|principal|staff|"
              r"takim lideri|teknik lider|head of|architect|mimar",
    "mid": r"mid[- ]?level|mid[- ]senior|intermediate|medior|orta seviye|orta duzey|"
           r"regular|mid",
    "junior": r"junior|jr\.?|entry[- ]level|new grad(?:uate)?|recent grad(?:uate)?|"
              r"graduate (?:program(?:me)?|role|position|engineer|developer|scheme)|"
              r"intern|internship|trainee|apprentice|stajyer|staj|yeni mezun|deneyimsiz|graduate",
}
# A level word naming other people ("mentor junior engineers") says nothing about this role.
_LEVEL_RE = {level: re.compile(rf"\b(?:{words})(?!\w)(?!\s+{_PEOPLE})") for level, words in
             _LEVEL_WORDS.items()}
# "lead", "staff", "graduate"... only count as a title (a role word follows or it is in the first
# line): elsewhere "lead the design" is a verb and "a university graduate" is every applicant.
_TITLE_ONLY = re.compile(r"^(?:lead|staff|principal|architect|mimar|regular|mid|graduate)$")
_ROLE_AFTER = re.compile(r"\s+(?:[a-z/+#.-]+\s+){0,3}?(?:engineer|developer|programmer|"
                         r"architect|scientist|analyst|tester|administrator|dba|sre|"
                         r"muhendis|gelistirici|uzman|programci)")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "bir": 1, "iki": 2, "uc": 3, "dort": 4, "bes": 5, "alti": 6,
    "yedi": 7, "sekiz": 8, "dokuz": 9,
}
_NUM = r"([0-9]{1,2}|" + "|".join(_NUMBER_WORDS) + r")"
_YEARS = re.compile(
    rf"\b{_NUM}\s*(?:\+|plus)?\s*(?:(?:-|to|ila|/)\s*{_NUM}\s*\+?\s*)?"
    r"(?:years?|yrs?|yil|sene)\w*")
_EXPERIENCE = re.compile(r"experience|exp\b|deneyim|tecrube|professional|industry|hands-on|"
                         r"background|track record|in (?:a |the )?(?:similar|backend|frontend)")
# "3+ years of C++" is experience too; "10 years ago" or "20 years in the market" is not.
_YEARS_OF = re.compile(r"\s+(?:of|in|with|as)\b")
_NOT_EXPERIENCE = re.compile(r"\s*(?:ago|old\b|history|in (?:the )?(?:market|business)|"
                             r"once|oncesi)")


@dataclass(frozen=True)
class LevelGuess:
    level: str
    stated: bool  # False when the ad names no level and DEFAULT_LEVEL was used
    evidence: tuple[str, ...] = ()


def _number(text: str | None) -> int | None:
    if text is None:
        return None
    number = parse_number(text)
    return number if number is not None else _NUMBER_WORDS.get(text)


def _years_level(years: int) -> str:
    return "junior" if years <= 1 else "mid" if years <= 4 else "senior"


def detect_level(text: str) -> LevelGuess:
    """The level an ad asks for: its title's level word, else the years it asks, else words."""
    folded = fold(text)
    first_line = next((i for i, line in enumerate(folded.splitlines()) if line.strip()), 0)
    title_end = sum(len(line) + 1 for line in folded.splitlines()[: first_line + 1])
    title_end = min(title_end, 160)
    found: dict[str, list[tuple[int, int]]] = {level: [] for level in LEVELS}
    for level, pattern in _LEVEL_RE.items():
        for match in pattern.finditer(folded):
            word = match.group(0).rstrip(".")
            in_title = match.start() < title_end
            if _TITLE_ONLY.match(word) and not in_title and not _ROLE_AFTER.match(
                    folded, match.end()):
                continue
            found[level].append(match.span())

    def quote(span: tuple[int, int]) -> str:
        return " ".join(text[span[0] : span[1]].split())

    title_words = sorted((span, level) for level in LEVELS for span in found[level]
                         if span[0] < title_end)
    if title_words:
        span, level = title_words[0]
        return LevelGuess(level, True, (quote(span),))
    years: list[tuple[int, tuple[int, int]]] = []
    for match in _YEARS.finditer(folded):
        window = folded[max(0, match.start() - 50) : match.end() + 60]
        if _NOT_EXPERIENCE.match(folded, match.end()):
            continue
        if _EXPERIENCE.search(window) or _YEARS_OF.match(folded, match.end()):
            low = _number(match.group(1))
            if low is not None and low <= 20:
                years.append((low, match.span()))
    if years:
        low, span = max(years)  # "3+ years of X, 5+ years of Y": the role needs the most
        return LevelGuess(_years_level(low), True, (quote(span),))
    counts = {level: len(spans) for level, spans in found.items() if spans}
    if counts:
        level = max(counts, key=lambda lv: (counts[lv], LEVELS.index(lv)))
        return LevelGuess(level, True, (quote(found[level][0]),))
    return LevelGuess(DEFAULT_LEVEL, False)


# ---------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class TopicMatch:
    topic: str
    score: float
    words: tuple[str, ...]  # the ad's own words that matched, best first


@dataclass(frozen=True)
class FieldMatch:
    field: str
    score: float
    confidence: float  # 0..1
    evidence: float
    topics: tuple[TopicMatch, ...]


@dataclass(frozen=True)
class JobMatch:
    fields: tuple[FieldMatch, ...]  # every field, best first
    level: LevelGuess
    confident: bool

    @property
    def best(self) -> FieldMatch | None:
        """The matched field, or None when the ad matches no field well."""
        return self.fields[0] if self.confident and self.fields else None


class _BM25:
    """BM25 over documents given as weighted term counts; weights precomputed per posting."""

    def __init__(self, docs: Sequence[Weights], k1: float, b: float) -> None:
        lengths = [sum(doc.values()) for doc in docs]
        # A bank whose topics have no words at all (names in emoji) must not stop start-up.
        average = (sum(lengths) / len(lengths) if lengths else 0.0) or 1.0
        frequency: Counter[str] = Counter()  # documents per term
        for doc in docs:
            frequency.update(doc.keys())
        count = len(docs)
        self.idf = {term: math.log(1 + (count - n + 0.5) / (n + 0.5))
                    for term, n in frequency.items()}
        self.postings: dict[str, dict[int, float]] = {}
        for index, doc in enumerate(docs):
            norm = k1 * (1 - b + b * lengths[index] / average)
            for term, tf in doc.items():
                weight = self.idf[term] * tf * (k1 + 1) / (tf + norm)
                self.postings.setdefault(term, {})[index] = weight

    def scores(self, query: dict[str, float], size: int) -> list[float]:
        totals = [0.0] * size
        for term, weight in query.items():
            for index, value in self.postings.get(term, {}).items():
                totals[index] += weight * value
        return totals


def _add_phrases(doc: Weights, phrases: Iterable[str], part: float) -> None:
    """A phrase counts whole (as one n-gram term) and, more weakly, by its single words."""
    for phrase in phrases:
        terms = phrase_terms(phrase)
        if 0 < len(terms) <= MAX_N:
            doc[" ".join(terms)] += 1.0
        if len(terms) > 1:
            for term in terms:
                doc[term] += part


def _whole_term(phrase: str) -> str:
    """A phrase as one term ("" when it has no content words or is too long to match whole)."""
    terms = phrase_terms(phrase)
    return " ".join(terms) if len(terms) <= MAX_N else ""


def _strongest(doc: Weights, limit: int) -> Weights:
    """The `limit` heaviest terms of a document (all of them when it has fewer)."""
    if len(doc) <= limit:
        return doc
    # The weight of the limit-th heaviest first (compares numbers only), then the few at or
    # above it in order: the same terms as sorting them all, at a fraction of the cost.
    cutoff = heapq.nlargest(limit, doc.values())[-1]
    kept = sorted(((term, weight) for term, weight in doc.items() if weight >= cutoff),
                  key=lambda item: (-item[1], item[0]))[:limit]
    return defaultdict(float, kept)


def _add_weights(doc: Weights, other: Mapping[str, float]) -> None:
    for term, weight in other.items():
        doc[term] += weight


def _add_text(doc: Weights, text: str) -> None:
    counts: Counter[str] = Counter()
    _count_terms(counts, text)
    _add_weights(doc, counts)


def _count_terms(counts: Counter[str], text: str) -> None:
    """Each word and each pair of neighbouring words of `text` as terms, counted."""
    terms = _text_terms(text)
    counts.update(terms)
    counts.update(map(" ".join, zip(terms, terms[1:], strict=False)))


# Word (as the token pattern finds it) -> its term, or "" when it is not one: the bank's texts
# repeat a few thousand words millions of times, and a word's term depends on nothing else.
_TERMS: dict[str, str] = {}


def _text_terms(text: str) -> list[str]:
    """`tokenize(text)`'s terms without their positions: what building the matcher needs, at a
    fraction of the cost (most of a 30,000-question build). "Go" the language is told from "go"
    the verb by its capital, which only the positions show: such texts take `tokenize`."""
    if "Go" in text:
        return [token.term for token in tokenize(text)]
    terms = []
    for word in _TOKEN.findall(fold(text)):
        term = _TERMS.get(word)
        if term is None:
            found = tokenize(word)
            term = _TERMS[word] = found[0].term if found else ""
        if term:
            terms.append(term)
    return terms


def load_vocabulary(path: Path = VOCABULARY) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader) or {}


# The question text of a topic is a refinement (see Matcher): its heaviest terms carry it, and
# keeping only those bounds the index by topics rather than by questions (30,000 questions
# would otherwise cost about a gigabyte of postings).
TEXT_TERMS = 200


class _Channel:
    """One kind of evidence, indexed per topic and per field (a field is all its topics)."""

    def __init__(self, topic_docs: Sequence[Weights], field_docs: Sequence[Weights],
                 k1: float, b: float) -> None:
        self.topics = _BM25(topic_docs, k1, b)
        self.fields = _BM25(field_docs, k1, b)


class Matcher:
    """Built once per bank; `match(text)` ranks an ad in a few milliseconds.

    Two channels of evidence: curated words (pack keywords, topic names, the field vocabulary)
    decide whether an ad is about a field at all; the questions' own text refines the ranking
    but on its own never makes a match (chance words like "teacher" or "temperature" live there).
    """

    def __init__(self, bank: Bank, vocabulary: dict | None = None) -> None:
        vocabulary = load_vocabulary() if vocabulary is None else vocabulary
        field_words = vocabulary.get("fields") or {}
        topic_words = vocabulary.get("topics") or {}
        self.field_keys = sorted(bank.fields)
        # Whole curated terms (a keyword, a vocabulary phrase) per field: only these count as
        # evidence that an ad is about the field; a lone "warehouse" or "chef" does not.
        self.whole: dict[str, set[int]] = {}
        self.topic_whole: dict[str, set[int]] = {}  # the same for each topic's own keywords
        # (whole term, topic) -> the keywords' and name's full word forms: an ad's words are
        # shown as evidence for a topic only when they are one of these, whole.
        self.topic_forms: dict[tuple[str, int], set[str]] = {}
        self.topic_keys: list[tuple[str, str]] = []
        self.topics_of: dict[str, list[int]] = {key: [] for key in self.field_keys}
        curated_topics: list[Weights] = []
        text_topics: list[Weights] = []
        curated_fields: list[Weights] = []
        text_fields: list[Weights] = []
        for field_key in self.field_keys:
            info = bank.fields[field_key]
            curated_field: Weights = defaultdict(float)
            text_field: Weights = defaultdict(float)
            for topic_key in sorted(info.topics):
                topic = info.topics[topic_key]
                curated: Weights = defaultdict(float)
                extra = topic_words.get(f"{field_key}/{topic_key}") or {}
                keywords = [*topic.keywords.en, *topic.keywords.tr, *extra.get("en", []),
                            *extra.get("tr", [])]
                _add_phrases(curated, keywords, W_PART)
                self._add_whole(keywords, len(curated_fields))
                for phrase in keywords:
                    self.topic_whole.setdefault(_whole_term(phrase), set()).add(
                        len(self.topic_keys))
                for phrase in [*keywords, *({topic.name.en, topic.name.tr} - {None})]:
                    self.topic_forms.setdefault((_whole_term(phrase), len(self.topic_keys)),
                                                set()).add(word_forms(phrase))
                for name in {topic.name.en, topic.name.tr}:
                    if name:
                        _add_text(curated, name)
                counts: Counter[str] = Counter()
                for question_id in topic.question_ids:
                    question = bank.questions[question_id]
                    for lang in question.languages:
                        _count_terms(counts, question.text(lang).body)
                        _count_terms(counts, question.text(lang).explanation)
                text = _strongest(defaultdict(float, counts), TEXT_TERMS)
                self.topics_of[field_key].append(len(self.topic_keys))
                self.topic_keys.append((field_key, topic_key))
                curated_topics.append(curated)
                text_topics.append(text)
                _add_weights(curated_field, curated)
                _add_weights(text_field, text)
            words = field_words.get(field_key) or {}
            phrases = [*words.get("en", []), *words.get("tr", []),
                       *({info.name.en, info.name.tr} - {None})]
            _add_phrases(curated_field, phrases, W_PART)
            self._add_whole(phrases, len(curated_fields))
            curated_fields.append(curated_field)
            text_fields.append(text_field)
        self.curated = _Channel(curated_topics, curated_fields, K1_CURATED, B_CURATED)
        self.text = _Channel(text_topics, text_fields, K1_TEXT, B_TEXT)

    def _add_whole(self, phrases: Iterable[str], field_index: int) -> None:
        for phrase in phrases:
            self.whole.setdefault(_whole_term(phrase), set()).add(field_index)

    def query(self, text: str) -> tuple[dict[str, float], dict[str, str], set[str]]:
        """The ad as weighted terms, each term's first wording in the ad, the title's terms."""
        tokens = tokenize(text)
        first_line = text.lstrip().split("\n", 1)[0]
        title_end = (len(text) - len(text.lstrip())) + min(len(first_line), 120)
        counts: Counter[str] = Counter()
        in_title: set[str] = set()
        surface: dict[str, str] = {}
        for term, start, end in ngrams(tokens):
            counts[term] += 1
            if start < title_end:
                in_title.add(term)
            surface.setdefault(term, " ".join(text[start:end].lstrip(".").split()))
        weights = {term: (1 + math.log(n)) * (TITLE_BOOST if term in in_title else 1.0)
                   for term, n in counts.items()}
        return weights, surface, in_title

    def match(self, text: str) -> JobMatch:
        query, surface, in_title = self.query(text)
        size = len(self.field_keys)
        field_scores = [c + W_TEXT * t for c, t in
                        zip(self.curated.fields.scores(query, size),
                            self.text.fields.scores(query, size), strict=True)]
        # Evidence counts each curated term once (a word repeated 60 times is still one word).
        evidence = [0.0] * size
        for term in query:
            boost = TITLE_BOOST if term in in_title else 1.0
            for index in self.whole.get(term, ()):
                evidence[index] += boost * self.curated.fields.postings[term][index]
        # Per topic, what each term of the ad adds: the score and the words to show. A topic
        # counts only with one of its keywords in the ad; other words just order the topics.
        parts: list[dict[str, float]] = [{} for _ in self.topic_keys]
        for term, weight in query.items():
            for channel, scale in ((self.curated, 1.0), (self.text, W_TEXT)):
                for index, value in channel.topics.postings.get(term, {}).items():
                    part = parts[index]
                    part[term] = part.get(term, 0.0) + weight * scale * value
        named = {index for term in query for index in self.topic_whole.get(term, ())
                 if self._is_evidence(index, term, surface[term])}
        topic_scores = [sum(part.values()) if i in named else 0.0
                        for i, part in enumerate(parts)]
        order = sorted(range(size), key=lambda i: -field_scores[i])
        confidences = _confidences(field_scores)
        results = []
        for index in order:
            key = self.field_keys[index]
            topics = sorted(((topic_scores[i], i) for i in self.topics_of[key]
                             if topic_scores[i] > 0), reverse=True)[:TOPICS_SHOWN]
            results.append(FieldMatch(
                key, field_scores[index], confidences[index], evidence[index],
                tuple(TopicMatch(self.topic_keys[i][1], score, self._words(i, parts[i], surface))
                      for score, i in topics)))
        strongest = max(evidence, default=0.0)
        length = sum(1 for term in query if " " not in term)
        confident = bool(results) and strongest >= max(
            MIN_EVIDENCE, MIN_EVIDENCE_DENSITY * math.sqrt(length))
        return JobMatch(tuple(results), detect_level(text), confident)

    def _words(self, topic: int, part: dict[str, float],
               surface: dict[str, str]) -> tuple[str, ...]:
        """The ad's words that are evidence for a topic: one of its keywords or its name, whole
        (phrases first); words that added little are left out. A word that only shares a stem
        ("Connect" for "connection") or a fragment of a phrase is never shown."""
        evidence = {term: value for term, value in part.items()
                    if self._is_evidence(topic, term, surface[term])}
        top = max(evidence.values(), default=0.0)

        def order(term: str) -> tuple[bool, float]:
            return " " not in term, -evidence[term]

        ranked = sorted((term for term, value in evidence.items()
                         if value >= WORDS_MIN_SHARE * top), key=order)
        chosen: list[str] = []
        covered: set[str] = set()
        for term in ranked:
            pieces = set(term.split())
            words = surface[term]
            if (pieces <= covered or len(words) > WORDS_MAX_LENGTH
                    or any(words.lower() == c.lower() for c in chosen)):
                continue
            chosen.append(words)
            covered |= pieces
            if len(chosen) == WORDS_SHOWN:
                break
        return tuple(chosen)

    def _is_evidence(self, topic: int, term: str, words: str) -> bool:
        """Whether the ad's `words` (matched as `term`) are a keyword or the name of `topic`."""
        forms = self.topic_forms.get((term, topic))
        return forms is not None and word_forms(words) in forms



def _confidences(scores: Sequence[float]) -> list[float]:
    """A softmax over field scores relative to the best one (scale-free: ad length cancels)."""
    top = max(scores, default=0.0)
    if top <= 0:
        return [0.0] * len(scores)
    exps = [math.exp((s - top) / (0.12 * top)) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def build_matcher(bank: Bank, vocabulary: dict | None = None) -> Matcher:
    return Matcher(bank, vocabulary)


_BUILT: weakref.WeakKeyDictionary[Bank, Matcher] = weakref.WeakKeyDictionary()
# The start-up warm-up and a first /jd may ask at once, from two threads: one builds, the
# other waits for it.
_BUILDING = threading.Lock()


def matcher_for(bank: Bank, build: Callable[[Bank], Matcher] = build_matcher) -> Matcher:
    """The matcher of this bank, made by `build` on first use (a cache may read it back from
    disk); a reloaded bank gets its own."""
    matcher = _BUILT.get(bank)
    if matcher is None:
        with _BUILDING:
            matcher = _BUILT.get(bank)
            if matcher is None:
                matcher = _BUILT[bank] = build(bank)
    return matcher


def read_text_file(data: bytes) -> str | None:
    """A .txt file's text (UTF-8 or UTF-16 with a BOM, else Turkish Windows-1254), or None when
    the bytes are not text at all."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            return None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1254", errors="replace")
    if "\x00" in text or sum(not (c.isprintable() or c.isspace()) for c in text) > len(text) // 20:
        return None
    return text
