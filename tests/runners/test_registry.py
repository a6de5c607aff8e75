from __future__ import annotations

import subprocess
import sys

import pytest

from hz.errors import ConfigError
from hz.runners.base import RunnerNotConfigured
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.codex import CodexRunner
from hz.runners.offline import OfflineRunner
from hz.runners.registry import get_runner, resolve_name, runner_for
from hz.runners.settings import ModelChoice, RunnerSettings


def test_any_means_the_users_default_which_defaults_to_offline() -> None:
    assert resolve_name("any", RunnerSettings()) == "offline"
    assert resolve_name(None, RunnerSettings(default="codex")) == "codex"
    assert resolve_name("claude-code", RunnerSettings(default="codex")) == "claude-code"
    assert isinstance(get_runner("any", RunnerSettings(), {}), OfflineRunner)


def test_each_name_builds_its_runner() -> None:
    settings = RunnerSettings()
    assert isinstance(get_runner("claude-code", settings, {}, model="deep"), ClaudeCodeRunner)
    assert isinstance(get_runner("codex", settings, {}), CodexRunner)


def test_a_runner_hz_does_not_ship_is_a_clear_error() -> None:
    with pytest.raises(RunnerNotConfigured) as info:
        get_runner("cursor", RunnerSettings(), {})
    assert info.value.message == "runner not configured: hz has no runner named 'cursor'"
    assert info.value.hint == "use one of: any, offline, model, claude-code, codex"


def test_runner_for_reads_config_toml(tmp_path_factory: pytest.TempPathFactory) -> None:
    config_home = tmp_path_factory.mktemp("config")
    (config_home / "config.toml").write_text(
        '[runners]\ndefault = "claude-code"\n[runners.claude-code]\nmodel = "opus"\n'
    )
    runner = runner_for("any", {"HZ_CONFIG_HOME": str(config_home)})
    assert isinstance(runner, ClaudeCodeRunner)
    assert runner.model == "opus"


def test_settings_read_every_table() -> None:
    settings = RunnerSettings.from_config(
        {
            "runners": {
                "default": "model",
                "model": {
                    "provider": "anthropic",
                    "api_key_env": "MY_KEY",
                    "fast": "claude-haiku-4-5",
                    "max_output_tokens": 2048,
                },
                "codex": {"command": "/opt/codex/bin/codex", "model": "gpt-5-codex"},
            }
        }
    )
    assert settings.default == "model"
    assert settings.endpoint.key_env == "MY_KEY"
    assert settings.endpoint.max_output_tokens == 2048
    assert settings.endpoint.choice == ModelChoice(None, {"fast": "claude-haiku-4-5"})
    assert settings.endpoint.choice.resolve("fast", settings.endpoint.class_defaults()) == "claude-haiku-4-5"
    assert settings.endpoint.choice.resolve("deep", settings.endpoint.class_defaults()) == "claude-opus-5-5"
    assert settings.endpoint.choice.resolve("claude-x-1", {}) == "claude-x-1"
    assert settings.codex.command == "/opt/codex/bin/codex"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"runners": {"default": "gpt"}},
            "runners.default must be one of offline, model, claude-code, codex, got 'gpt'",
        ),
        (
            {"runners": {"model": {"provider": "mistral"}}},
            "runners.model.provider must be openai or anthropic, got 'mistral'",
        ),
        (
            {"runners": {"model": {"max_output_tokens": 0}}},
            "runners.model.max_output_tokens must be a positive integer, got 0",
        ),
        ({"runners": {"codex": {"sandbox": "none"}}}, "unknown key runners.codex.sandbox"),
        ({"runners": {"claude-code": {"model": 3}}}, "runners.claude-code.model must be a non-empty string, got 3"),
        ({"runners": "offline"}, "runners must be a table"),
    ],
)
def test_malformed_settings_are_config_errors(config: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        RunnerSettings.from_config(config)
    assert info.value.message == message


def test_the_offline_path_does_not_import_pydantic_ai() -> None:
    code = (
        "import sys\n"
        "from hz.runners.registry import get_runner\n"
        "from hz.runners.settings import RunnerSettings\n"
        "runner = get_runner('any', RunnerSettings(), {})\n"
        "import hz.runners.base\n"
        "print(runner.name, 'pydantic_ai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "offline False\n"


def test_the_interface_module_imports_no_pydantic() -> None:
    code = "import sys\nimport hz.runners.base\nprint('pydantic' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "False\n"
