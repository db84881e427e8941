"""A strategy is checked against every member of BoardControl, read from the protocol itself."""

from types import SimpleNamespace

from hil.lab.board.strategy import BoardControl, missing_board_control


def _strategy(**members: object) -> SimpleNamespace:
    def method() -> None:
        return None

    full = dict(power_cycles=0, boot_times_s=[], suspect_reason=None, build=None, build_view=None)
    full |= dict(ensure_shell=method, mark_suspect=method, power_cycle=method)
    return SimpleNamespace(**(full | members))


def test_a_strategy_with_every_member_satisfies_the_interface():
    assert missing_board_control(_strategy()) == []
    assert isinstance(_strategy(), BoardControl)


def test_a_strategy_without_build_view_is_named_lacking_it():
    strategy = _strategy()
    del strategy.build_view, strategy.mark_suspect
    assert missing_board_control(strategy) == ["build_view", "mark_suspect"]
