"""The shared ledger's address rules (Qt-free): parsing, the password taken out, TLS."""

import pytest

from paydesk.config.shared_ledger import (
    choose,
    is_local_host,
    parse,
    password_entry,
    split_password,
    url_problem,
)


def test_parse_takes_the_url_apart():
    url = parse("postgresql://pay%40desk:s%3Acret@db.shop.lan:6432/paydesk?sslmode=verify-full")
    assert (url.user, url.password, url.hosts, url.ports, url.database, url.sslmode) == (
        "pay@desk",
        "s:cret",
        ("db.shop.lan",),
        ("6432",),
        "paydesk",
        "verify-full",
    )
    assert not url.local
    assert url.where == "db.shop.lan:6432/paydesk"


def test_parse_knows_sockets_several_hosts_and_ipv6():
    assert parse("postgresql:///paydesk").hosts == ()
    assert parse("postgresql:///paydesk").local
    socket = parse("postgresql://paydesk@%2Fvar%2Frun%2Fpostgresql/paydesk")
    assert socket.hosts == ("/var/run/postgresql",) and socket.local
    assert parse("postgresql://u@/paydesk?host=/tmp").hosts == ("/tmp",)
    several = parse("postgresql://u@a.lan:5432,b.lan:5433/paydesk?sslmode=require")
    assert several.hosts == ("a.lan", "b.lan") and several.ports == ("5432", "5433")
    assert parse("postgres://u@[::1]:5432/paydesk").hosts == ("::1",)


@pytest.mark.parametrize(
    "host", ["localhost", "127.0.0.1", "127.8.9.1", "::1", "[::1]", "/var/run/postgresql", "shop.localhost"]
)
def test_this_computer(host):
    assert is_local_host(host)


@pytest.mark.parametrize("host", ["db.shop.lan", "10.0.0.5", "192.168.1.2", "::2", "localhost.lan"])
def test_another_computer(host):
    assert not is_local_host(host)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://paydesk@localhost/paydesk",
        "postgresql://paydesk@127.0.0.1:5433/paydesk",
        "postgresql:///paydesk",
        "postgresql://paydesk@%2Ftmp/paydesk",
        "postgresql://paydesk@db.shop.lan/paydesk?sslmode=require",
        "postgresql://paydesk@db.shop.lan/paydesk?sslmode=verify-ca&sslrootcert=/etc/shop-ca.pem",
        "postgres://paydesk@db.shop.lan/paydesk?sslmode=verify-full",
    ],
)
def test_accepted(url):
    assert url_problem(url) is None


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://paydesk@db.shop.lan/paydesk",
        "postgresql://paydesk@db.shop.lan/paydesk?sslmode=prefer",
        "postgresql://paydesk@db.shop.lan/paydesk?sslmode=disable",
        "postgresql://paydesk@10.0.0.5/paydesk?sslmode=allow",
        # one remote host among local ones is enough to need TLS
        "postgresql://paydesk@localhost,db.shop.lan/paydesk",
        "postgresql://paydesk@localhost/paydesk?hostaddr=10.0.0.5",
    ],
)
def test_another_computer_needs_tls(url):
    assert "TLS" in url_problem(url) and "sslmode=require" in url_problem(url)


def test_other_problems_are_said():
    assert "postgresql://" in url_problem("https://db.shop.lan/paydesk")
    assert "postgresql://" in url_problem("db.shop.lan")
    assert "Name the database" in url_problem("postgresql://paydesk@localhost")
    assert "port must be a number" in url_problem("postgresql://u@localhost:pg/paydesk")
    assert "not a mode" in url_problem("postgresql://u@db.lan/paydesk?sslmode=always")


def test_the_password_is_taken_out():
    assert split_password("postgresql://paydesk:s3cret@db.lan/paydesk?sslmode=require") == (
        "postgresql://paydesk@db.lan/paydesk?sslmode=require",
        "s3cret",
    )
    assert split_password("postgresql://paydesk:p%40ss%3Aw@db.lan/paydesk") == (
        "postgresql://paydesk@db.lan/paydesk",
        "p@ss:w",
    )
    assert split_password("postgresql://paydesk@db.lan/paydesk?password=pw&sslmode=require") == (
        "postgresql://paydesk@db.lan/paydesk?sslmode=require",
        "pw",
    )
    assert split_password("postgresql://paydesk@db.lan/paydesk?password=pw") == (
        "postgresql://paydesk@db.lan/paydesk",
        "pw",
    )
    # nothing to take out: the URL as typed (trimmed)
    assert split_password(" postgresql://paydesk@db.lan/paydesk?sslmode=require ") == (
        "postgresql://paydesk@db.lan/paydesk?sslmode=require",
        None,
    )
    assert split_password("postgresql://paydesk:@db.lan/paydesk")[1] is None


def test_the_password_entry_names_user_server_and_database_only():
    with_password = password_entry("postgresql://paydesk:s3cret@db.lan:6432/shop?sslmode=require")
    assert with_password == password_entry("postgresql://paydesk@db.lan:6432/shop")
    assert "s3cret" not in with_password
    assert password_entry("postgresql://paydesk@db.lan/shop") != password_entry("postgresql://paydesk@db.lan/other")


def test_the_choice_command_line_then_settings_then_own():
    saved = "postgresql://paydesk@db.lan/paydesk?sslmode=require"
    given = "postgresql://paydesk:pw@localhost/paydesk"
    assert choose(given, saved).url == "postgresql://paydesk@localhost/paydesk"
    assert choose(given, saved).source == "command line"
    assert (choose(None, saved).url, choose(None, saved).source) == (saved, "settings")
    own = choose(None, None)
    assert (own.url, own.source, own.shared) == (None, "own", False)


# -- a merchant's identity ---------------------------------------------------------------


def test_the_merchant_id_is_the_address_and_the_public_key():
    import hashlib

    from paydesk.config.merchants import merchant_id, normalise_base_url

    expected = "m-" + hashlib.sha256(b"https://pay.example.com/api\npk_test_1").hexdigest()[:20]
    assert merchant_id("https://pay.example.com/api", "pk_test_1") == expected
    # one deployment however its address is typed
    for typed in (
        "HTTPS://Pay.Example.com:443/api/",
        " https://pay.example.com/api// ",
        "https://pay.example.com/api?x=1",
    ):
        assert normalise_base_url(typed) == "https://pay.example.com/api"
        assert merchant_id(typed, "pk_test_1") == expected
    assert normalise_base_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080"
    assert normalise_base_url("http://[::1]:80") == "http://[::1]"
    assert merchant_id("https://pay.example.com/api", "pk_test_2") != expected
    assert merchant_id("https://pay.example.com/other", "pk_test_1") != expected
    assert len(expected) == 22


def test_the_test_public_key_names_the_merchant_else_the_live_one():
    from paydesk.config.merchants import identifying_key

    keys = {("test", "secret"): "sk_t", ("test", "public"): "pk_t", ("live", "public"): "pk_l"}
    assert identifying_key(keys) == "pk_t"
    assert identifying_key({**keys, ("test", "public"): ""}) == "pk_l"
    assert identifying_key({("test", "secret"): "sk_t"}) is None


def test_what_every_desk_shares_of_a_profile():
    from paydesk.config.merchants import from_shared, shared_fields
    from paydesk.config.profiles import Profile

    profile = Profile(
        id="p_1",
        name="Shop",
        base_url="https://pay.example.com",
        embedded_sandbox=True,
        sandbox_port=4242,
        txref_prefix="SHOP",
    )
    fields = shared_fields(profile)
    assert "id" not in fields and "sandbox_port" not in fields and "embedded_sandbox" not in fields
    back = from_shared("m-abc", {**fields, "added_by_a_newer_paydesk": 1})
    assert (back.id, back.name, back.txref_prefix, back.embedded_sandbox) == ("m-abc", "Shop", "SHOP", False)


def test_paydesk_refuses_a_ledger_url_without_tls_before_anything_starts(capsys, tmp_path):
    from paydesk import app

    code = app.main(["--ledger", "postgresql://paydesk@ledger.shop.lan/paydesk", "--data-dir", str(tmp_path / "data")])
    assert code == 2
    err = capsys.readouterr().err
    assert "--ledger" in err and "sslmode=require" in err
    assert not (tmp_path / "data").exists()  # nothing made


def test_paydesk_refuses_a_password_on_its_command_line(capsys, tmp_path):
    from paydesk import app

    for url in (
        "postgresql://paydesk:s3cr3t-pw@ledger.shop.lan/paydesk?sslmode=require",
        "postgresql://paydesk@localhost/paydesk?password=s3cr3t-pw",
    ):
        assert app.main(["--ledger", url, "--data-dir", str(tmp_path / "data")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("paydesk: --ledger: leave the password out of the address")
        assert "--ledger-password-stdin" in err and "s3cr3t-pw" not in err
    assert not (tmp_path / "data").exists()  # nothing made, nothing kept


def test_the_password_read_from_standard_input():
    import io

    from paydesk.config.shared_ledger import read_password

    assert read_password(io.StringIO("s3cr3t pw \r\nmore\n")) == "s3cr3t pw"
    assert read_password(io.StringIO("")) is None
    assert read_password(io.StringIO("\n")) is None
