"""Elo-style ratings for adaptive difficulty: one per question, one per user and field.

A right answer is a win for the user over the question. The predicted chance that a user rated
`u` answers a question rated `q` right is `1 / (1 + 10 ** ((q - u) / SCALE))`; after the answer
both ratings move by `k * (result - predicted)` in opposite directions, where `k` shrinks as the
rating gathers evidence (`k_factor`). Only a user's FIRST answer to a question counts (a repeat
measures memory of that question, not skill). The constants are documented in docs/features.md.
"""

from __future__ import annotations

SCALE = 400.0
# A question's rating before anyone answered it: its level, nudged by its difficulty (1-3).
LEVEL_BASE = {"junior": 1300.0, "mid": 1500.0, "senior": 1700.0}
DIFFICULTY_STEP = 50.0
# A user's rating in a field before their first answer: the level they chose, plus a margin
# that puts an average question of that level at about 70% (the low end of the band).
USER_MARGIN = 150.0
# k falls from K_MAX towards K_MIN as answers accumulate: halfway after HALF answers.
USER_K = (64.0, 16.0, 20.0)  # (K_MAX, K_MIN, HALF)
QUESTION_K = (40.0, 8.0, 30.0)
# The predicted chance of a right answer the next question should have: hard enough to teach,
# easy enough to keep going.
BAND = (0.70, 0.85)
# The next level is suggested once the predicted score there reaches the band's low end, and
# only after this many rated answers in the field (before that the rating is mostly its start).
SUGGEST_AFTER = 20


def expected(user: float, question: float) -> float:
    """The predicted chance that a user rated `user` answers a question rated `question` right."""
    return 1.0 / (1.0 + 10.0 ** ((question - user) / SCALE))


def question_prior(level: str, difficulty: int | None = None) -> float:
    base = LEVEL_BASE.get(level, LEVEL_BASE["mid"])
    return base + (difficulty - 2) * DIFFICULTY_STEP if difficulty else base


def user_prior(level: str | None) -> float:
    return LEVEL_BASE.get(level or "", LEVEL_BASE["junior"]) + USER_MARGIN


def k_factor(answers: int, k: tuple[float, float, float]) -> float:
    """Large while a rating knows little, smaller as its answers accumulate."""
    k_max, k_min, half = k
    return k_min + (k_max - k_min) * half / (half + max(answers, 0))


def update(user: float, user_answers: int, question: float, question_answers: int,
           right: bool) -> tuple[float, float]:
    """Both ratings after a first answer: (user, question)."""
    surprise = (1.0 if right else 0.0) - expected(user, question)
    return (user + k_factor(user_answers, USER_K) * surprise,
            question - k_factor(question_answers, QUESTION_K) * surprise)


def band_distance(chance: float, band: tuple[float, float] = BAND) -> float:
    """0 inside the band, else how far outside it."""
    low, high = band
    return max(low - chance, chance - high, 0.0)


def ready_for_next(chance: float, rated_answers: int) -> bool:
    """The predicted score at the next level reaches the band, on enough evidence."""
    return rated_answers >= SUGGEST_AFTER and chance >= BAND[0]
