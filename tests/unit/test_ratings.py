"""Adaptive difficulty: the Elo update converges on simulated users of known skill, and the next
question is chosen inside the target band, mixing topics, falling back when the pool is small."""

from __future__ import annotations

import random

from domain import ratings
from questions.selection import Seen, choose_adaptive


def simulate(seed: int, *, abilities: list[float], questions: int = 300, crowd: int = 40):
    """Users with a known ability answer questions of known difficulty once each, in a random
    order, outcomes drawn from the true chance; the estimates start from the priors."""
    rng = random.Random(seed)
    truth = [rng.uniform(1100, 1900) for _ in range(questions)]
    q_est = [ratings.question_prior("mid") for _ in truth]
    q_n = [0] * questions
    people = abilities + [rng.gauss(1500, 150) for _ in range(crowd)]  # the rest of the users
    u_est = [ratings.user_prior("junior") for _ in people]
    u_n = [0] * len(people)
    turns = [(u, q) for u in range(len(people)) for q in range(questions)]
    rng.shuffle(turns)
    for u, q in turns:
        right = rng.random() < ratings.expected(people[u], truth[q])
        u_est[u], q_est[q] = ratings.update(u_est[u], u_n[u], q_est[q], q_n[q], right)
        u_n[u] += 1
        q_n[q] += 1
    return u_est[:len(abilities)], q_est, truth


def ranks(values):
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0] * len(values)
    for rank, index in enumerate(order):
        out[index] = rank
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb, strict=True)) / (n * (n * n - 1))


def test_ratings_rank_simulated_users_by_their_true_skill():
    abilities = [1200.0, 1350.0, 1500.0, 1650.0, 1800.0]
    for seed in range(5):
        users, questions, truth = simulate(seed, abilities=abilities)
        assert users == sorted(users), (seed, [round(u) for u in users])
        assert spearman(questions, truth) > 0.85, seed
        # The estimates land near the truth, not just in order (the scale is anchored by the
        # crowd's priors, so allow a margin).
        assert all(abs(u - a) < 150 for u, a in zip(users, abilities, strict=True)), seed


def test_the_update_rule():
    up, down = ratings.update(1500, 0, 1500, 0, right=True)
    assert up == 1500 + 64 * 0.5 and down == 1500 - 40 * 0.5
    # An expected result moves little, a surprise a lot; k shrinks with evidence.
    small, _ = ratings.update(1800, 100, 1300, 100, right=True)
    assert 0 < small - 1800 < 2
    assert ratings.k_factor(20, ratings.USER_K) == (64 + 16) / 2
    assert ratings.expected(1500, 1500) == 0.5
    assert ratings.question_prior("senior", 3) == 1750 and ratings.question_prior("junior") == 1300
    assert 0.69 < ratings.expected(ratings.user_prior("junior"), 1300) < 0.71


def test_suggestion_needs_the_band_and_enough_answers():
    assert not ratings.ready_for_next(0.9, ratings.SUGGEST_AFTER - 1)
    assert not ratings.ready_for_next(0.69, 100)
    assert ratings.ready_for_next(0.70, ratings.SUGGEST_AFTER)


class Q:
    def __init__(self, qid, topic="t", level="junior", difficulty=2):
        self.id, self.topic, self.seniority, self.difficulty = qid, topic, level, difficulty


def test_the_next_question_sits_in_the_band():
    pool = [Q(f"q{i}") for i in range(10)]
    rated = {f"q{i}": 1000.0 + 100 * i for i in range(10)}  # chances from 0.9 down
    user = 1500.0
    picks = {choose_adaptive(pool, {}, random.Random(s), user_rating=user, ratings=rated).id
             for s in range(30)}
    assert picks and all(0.70 <= ratings.expected(user, rated[q]) <= 0.85 for q in picks)


def test_a_small_pool_falls_back_to_the_closest_then_to_seen_ones():
    pool = [Q("easy"), Q("hard")]
    rated = {"easy": 500.0, "hard": 1650.0}  # 0.997 and 0.30: neither in the band
    pick = choose_adaptive(pool, {}, random.Random(1), user_rating=1500, ratings=rated)
    assert pick.id == "easy"  # 0.997 is 0.15 above the band, 0.30 is 0.40 below it
    # Unrated questions use their level's prior; everything seen: the missed one first.
    seen = {"easy": Seen(True, 10), "hard": Seen(False, 20)}
    assert choose_adaptive(pool, seen, random.Random(1), user_rating=1500, ratings={}).id == "hard"
    assert choose_adaptive([], {}, random.Random(1), user_rating=1500, ratings={}) is None


def test_a_plain_quiz_moves_on_to_another_topic():
    pool = [Q(f"{topic}{i}", topic) for topic in "abc" for i in range(5)]
    seen = {"a0": Seen(True, 100)}
    for seed in range(20):
        pick = choose_adaptive(pool, seen, random.Random(seed), user_rating=1450, ratings={},
                               last_topic="a")
        assert pick.topic != "a"
    # With one topic left unseen, it is still asked rather than nothing.
    only_a = [q for q in pool if q.topic == "a"]
    assert choose_adaptive(only_a, seen, random.Random(0), user_rating=1450, ratings={},
                           last_topic="a").topic == "a"
