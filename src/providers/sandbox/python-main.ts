/**
 * Defines `__sandbox_main(source, seed, now)` in Python: runs the agent's code as `__main__` with
 * `random` and `os.urandom` seeded and `time` frozen at `now`, in `/home/agent`, and answers the
 * exit code (`sys.exit(n)` → n, a traceback → 1 without the wrapper's frame, MemoryError → -137,
 * the engines' OUT_OF_MEMORY).
 * Both Python sandboxes (Pyodide and bubblewrap's python3) run their code through it.
 */
export const PYTHON_MAIN = String.raw`
def __sandbox_main(source, seed, now):
    import sys, os, random, time, traceback, io
    random.seed(seed)
    _rng = random.Random(seed + 1)
    os.urandom = lambda n: _rng.randbytes(n)
    random._urandom = os.urandom
    time.time = lambda: now
    time.time_ns = lambda: int(now * 1_000_000_000)
    os.chdir('/home/agent')
    sys.argv = ['main.py']
    sys.stdin = io.StringIO('')
    main = {'__name__': '__main__', '__builtins__': __builtins__}
    code = 0
    try:
        exec(compile(source, '<main>', 'exec'), main)
    except SystemExit as error:
        value = error.code
        if value is None:
            code = 0
        elif isinstance(value, int):
            code = value & 0xFF
        else:
            print(value, file=sys.stderr)
            code = 1
    except MemoryError:
        code = -137
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code
`;
