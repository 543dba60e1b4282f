"""Each extract option is defined once (``paper_claims.options``): the public functions, the
command line and ``Settings`` agree with the definition."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from paper_claims.api import extract_claims, write_claims
from paper_claims.cli import _parser
from paper_claims.options import EXTRACT_OPTIONS, OPTIONS_BY_NAME, SETTINGS, option_values
from paper_claims.settings import Settings

# what extract_claims takes besides the options: an open backend, ready settings, a printer
PLUMBING = {"sources", "settings", "backend", "say"}


@pytest.mark.parametrize("function, name", [(extract_claims, "table"), (write_claims, "stream")])
def test_the_public_functions_take_exactly_the_options_with_their_defaults(function, name) -> None:
    parameters = {p.name: p for p in inspect.signature(function).parameters.values() if p.name not in PLUMBING}
    options = {o.name: o for o in EXTRACT_OPTIONS if name in o.functions}
    assert set(parameters) == set(options)
    for key, parameter in parameters.items():
        if parameter.default is inspect.Parameter.empty:  # write_claims' positional out
            assert key == "out" and name == "stream"
            continue
        assert parameter.default == options[key].default_for(name), key


def test_every_settings_option_is_a_settings_field_with_the_same_default() -> None:
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    for option in EXTRACT_OPTIONS:
        if option.goes != SETTINGS:
            continue
        assert option.name in fields, option.name
        if option.default is not None:  # None: the settings' own default applies
            assert fields[option.name].default == option.default, option.name


def test_the_extract_command_has_a_flag_for_each_option_and_no_other() -> None:
    commands = next(a for a in _parser()._actions if a.dest == "command")
    extract = commands.choices["extract"]
    flagged = {a.dest for a in extract._actions if a.option_strings and a.dest != "help"}
    assert flagged == {o.name for o in EXTRACT_OPTIONS if o.flag is not None and "stream" in o.functions}


def test_command_line_values_become_the_options_of_write_claims() -> None:
    args = _parser().parse_args(["extract", "in.jsonl", "--out", "o", "--no-cache", "--quiet", "--no-db",
                                 "--engine", "ray", "--where", "a=b", "--where", "c~d", "--concurrency", "3"])
    values = {o.name: o.from_args(args) for o in EXTRACT_OPTIONS if o.flag is not None and "stream" in o.functions}
    assert values["use_cache"] is False and values["progress"] is False and values["db"] is False
    assert values["runner"] == "ray" and values["where"] == ["a=b", "c~d"] and values["concurrency"] == 3
    assert values["report"] is True and values["wait"] is False and values["model"] is None
    defaults = _parser().parse_args(["extract", "in.jsonl", "--out", "o"])
    assert OPTIONS_BY_NAME["db"].from_args(defaults) is True


def test_option_values_fill_what_was_not_given() -> None:
    values = option_values("table", {"model": "m"})
    assert values["model"] == "m" and values["progress"] is False and values["report"] is False
    assert option_values("stream", {})["progress"] is True
