from domain.flood_guard import FloodGuard


def test_flood_guard_drops_beyond_the_limit_and_recovers():
    guard = FloodGuard(limit=3, window=10)
    assert [guard.allow(1, t) for t in (0, 1, 2, 3)] == [True, True, True, False]
    assert guard.allow(2, 3)  # other users are not affected
    assert guard.should_warn(1, 3) and not guard.should_warn(1, 4)
    assert guard.allow(1, 10.5)


def test_memory_stays_bounded():
    guard = FloodGuard(limit=3, window=1, max_users=100)
    for user in range(1000):
        guard.allow(user, float(user))
    assert len(guard._events) <= 100
