"""A store's or a Ray cluster's password never reaches a message (issue 51), in every form of address a user may
give: libpq's query parameter, a password holding '/', '@' or a space, an unclosed '[' host, an upper-case
scheme; libpq's keyword form and other schemes are refused (they used to become SQLite folders named after the
URL, password included, printed in full). The servers here answer nothing (port 1 on loopback): what is
checked is every sentence the command line prints on the way."""

from __future__ import annotations

import pytest

from mtlens.cli import main
from mtlens.core.errors import InputError
from mtlens.core.secrets import redact, scrub, secrets_of

SECRET = "Zq9Secret"

ADDRESSES = [
    f"postgresql:///db?host=127.0.0.1&port=1&user=u&password={SECRET}",
    f"postgresql://u:{SECRET}/x@127.0.0.1:1/db",
    f"postgresql://u:{SECRET}@Pass@127.0.0.1:1/db",
    f"postgresql://u:{SECRET} x@127.0.0.1:1/db",
    f"postgresql://u:{SECRET}@[127.0.0.1:1/db",
    f"POSTGRESQL://u:{SECRET}@127.0.0.1:1/db",
    f"postgres://u:{SECRET}@127.0.0.1:1/db?sslmode=disable",
    f"host=127.0.0.1 port=1 user=u password={SECRET} dbname=db",
    f"mysql://u:{SECRET}@127.0.0.1:1/db",
]


@pytest.mark.parametrize("address", ADDRESSES, ids=range(len(ADDRESSES)))
@pytest.mark.parametrize(
    "command",
    [["list"], ["import", "FOLDER"], ["store", "copy", "ADDRESS", "TARGET"], ["store", "copy", "TARGET", "ADDRESS"]],
    ids=["list", "import", "copy-from", "copy-to"],
)
def test_no_password_in_any_message(tmp_path, capsys, monkeypatch, address, command):
    monkeypatch.chdir(tmp_path)  # where a folder named after the address would have been made
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "ref.txt").write_text("a b\n" * 3, encoding="utf-8")
    (folder / "hyp.txt").write_text("a b\n" * 3, encoding="utf-8")
    subs = {"FOLDER": str(folder), "ADDRESS": address, "TARGET": str(tmp_path / "target")}
    argv = [subs.get(x, x) for x in command]
    if command[0] != "store":
        argv += ["--store", address]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("mtlens: error: ") and err.count("\n") == 1, err
    assert SECRET not in out + err and SECRET[:6] not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) in (["set"], ["set", "target"])  # no folder named after it


def test_the_environments_store_address_is_checked_too(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MTLENS_STORE", f"host=h password={SECRET}")
    assert main(["list"]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err and "neither a postgresql:// URL nor a folder" in err
    assert list(tmp_path.iterdir()) == []


def test_a_ray_address_is_shown_without_its_password(monkeypatch):
    from mtlens.neural import environment

    monkeypatch.setenv(environment.RAY_ENV, f"ray://user:{SECRET}@127.0.0.1:1")
    with pytest.raises(InputError) as caught:
        environment.check_ray()
    assert SECRET not in str(caught.value) and "ray://user:***@127.0.0.1:1" in str(caught.value)
    monkeypatch.setenv(environment.RAY_ENV, f"ray://user:{SECRET}@127.0.0.1:1")
    said = environment.error_of("", f"ConnectionError: ray://user:{SECRET}@127.0.0.1:1 refused", 1)
    assert SECRET not in said


def test_redaction_by_hand():
    """The rules written out: everything to the last '@' before the path is user information; every
    password-like query value is hidden, in any case; a driver's message loses every secret it quotes."""
    assert redact("postgresql://u:a/b@h/db") == "postgresql://u:***@h/db"
    assert (
        redact("postgresql://u@h/db?PassWord=x&sslmode=require") == "postgresql://u@h/db?PassWord=***&sslmode=require"
    )
    assert redact("postgresql://h/db") == "postgresql://h/db"
    assert secrets_of("postgresql://u:p%40ss@h/db") == ["p%40ss", "p@ss"]
    assert scrub('invalid URI "postgresql://u:p@ss word@h/db": bad', "postgresql://u:p@ss word@h/db") == (
        'invalid URI "postgresql://u:***@h/db": bad'
    )
    assert scrub("password 'p@ss word' rejected", "postgresql://u:p@ss word@h/db") == "password '***' rejected"
    assert redact("ray://a:b@c:1") == "ray://a:***@c:1"


def test_a_job_on_a_ray_cluster_says_so_without_the_password(monkeypatch):
    """Issue 51: nothing said a COMET job ran on Ray; the panel and the command line now say where, with the
    address shown without its password."""
    from mtlens.neural import environment
    from mtlens.runtime.jobs import Progress
    from mtlens.ui.neural_panel import describe

    running = Progress("tiny", "running", 10, 100, 2.0, 45.0, None, "d")
    done = Progress("tiny", "done", 100, 100, None, None, None, "d")
    monkeypatch.delenv(environment.RAY_ENV, raising=False)
    assert environment.where_it_runs() == "on this machine"
    assert describe(running).startswith("comet:tiny: scoring 10 / 100 segments · ") and "Ray" not in describe(done)
    monkeypatch.setenv(environment.RAY_ENV, f"ray://user:{SECRET}@127.0.0.1:10001")
    for p in (running, done):
        line = describe(p)
        assert "on the Ray cluster at ray://user:***@127.0.0.1:10001" in line and SECRET not in line


@pytest.mark.parametrize(
    "command",
    [["list"], ["import", "FOLDER"], ["store", "copy", "ADDRESS", "TARGET"], ["store", "copy", "TARGET", "ADDRESS"]],
    ids=["list", "import", "copy-from", "copy-to"],
)
def test_an_address_with_two_ats_is_refused_showing_nothing_of_its_user_information(tmp_path, capsys, command):
    """Issue 58, G11: ``postgresql://mtlens:Wr0ng@Pass@127.0.0.1:55432/mtlens`` printed "Pass@127.0.0.1" (the driver
    took the password's second half for the host): such an address is refused, naming the fix."""
    address = "postgresql://mtlens:Wr0ng@Pass@127.0.0.1:55432/mtlens"
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "ref.txt").write_text("a b\n" * 3, encoding="utf-8")
    subs = {"FOLDER": str(folder), "ADDRESS": address, "TARGET": str(tmp_path / "target")}
    argv = [subs.get(x, x) for x in command] + ([] if command[0] == "store" else ["--store", address])
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "Pass" not in out + err and "Wr0ng" not in out + err and "mtlens:" not in err.replace("mtlens: error", "")
    assert err == (
        "mtlens: error: the address 'postgresql://***@127.0.0.1:55432/mtlens' has more than one '@' before its host: "
        "write an '@' of the user name or password as %40\n"
    )
