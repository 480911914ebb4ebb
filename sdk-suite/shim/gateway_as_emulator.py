"""pytest plugin (loaded by run.sh with `-p gateway_as_emulator`) for running azure-cosmos'
own tests against the project's gateway instead of the Cosmos DB emulator.

test_config.TestConfig decides `is_emulator` by comparing ACCOUNT_HOST with the emulator's
fixed address 'https://localhost:8081/'. The gateway is served over plain http on another
port, so that comparison is False although the gateway plays the emulator's role. With
SDKTESTS_IS_EMULATOR=1 (run.sh's default) this plugin sets TestConfig.is_emulator = True
before any test module is imported (test classes copy it at import). Effects, in 4.17.1:
test_change_feed_all_versions*.py create their containers with changeFeedPolicy
retentionDuration (as for the emulator); the emulator-only AAD tests and SSL-verification
switches in test_aad*.py / test_read_timeout_propagation*.py /
test_user_agent_overwrite_regression*.py follow the emulator branch.
No test file is modified. Written for this harness; not Microsoft code."""
import os
import sys

# the unchanged upstream tests/, fetched by fetch.sh (run.sh exports SDKTESTS_DIR)
_TESTS = os.environ.get("SDKTESTS_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests")


def pytest_configure(config):
    if os.environ.get("SDKTESTS_IS_EMULATOR", "1") != "1":
        return
    tests = os.path.abspath(_TESTS)
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import test_config  # noqa: E402  (the unchanged upstream module)
    test_config.TestConfig.is_emulator = True


# --- result recording -------------------------------------------------------------------
# With SDKTESTS_JSONL set, one JSON line per test phase that did not simply pass, and one
# per passed call, with the test's markers (class and function), so that run.sh's summary
# can tell the emulator suite (cosmosEmulator) from the live-account and multi-region ones.
import json  # noqa: E402

import pytest  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    path = os.environ.get("SDKTESTS_JSONL")
    if not path:
        return
    if rep.when != "call" and rep.passed:
        return
    if rep.passed:
        status = "passed"
    elif rep.skipped:
        status = "skipped"
    elif rep.when == "call":
        status = "failed"
    else:
        status = "error"
    text = ""
    if not rep.passed:
        if rep.skipped and isinstance(rep.longrepr, tuple):
            text = str(rep.longrepr[2])
        else:
            text = getattr(rep, "longreprtext", "") or ""
    rec = {
        "nodeid": item.nodeid,
        "when": rep.when,
        "status": status,
        "duration": round(rep.duration, 3),
        "markers": sorted({m.name for m in item.iter_markers()}),
        "text": text[-6000:],
    }
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")
