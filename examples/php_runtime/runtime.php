<?php
/**
 * A FlowDrop runtime of RT-TOOL-7 and RT-GATE-6 in PHP 8.2, and its adapter loop.
 *
 * Written to be copied: one file, PHP's standard library only (json, files, STDIN/STDOUT), nothing
 * from pausecheck. The durable state (run records, attempt trails, questions, assistant messages, held
 * lists, overflow warnings) is one JSON document, written whole at the end of each step (to a temporary
 * file, then renamed over the store), so a step commits entirely or not at all. What a segment has in
 * flight (what it collected, what a write-back took) is in memory, as in an engine: a restart loses it.
 *
 * It speaks the pausecheck adapter protocol (docs/oracle-adapter.md): one JSON request per line on
 * stdin, exactly one JSON response per line on stdout, flushed after each.
 *
 *     pausecheck conform -- php examples/php_runtime/runtime.php
 *
 * `--bug NAME` turns on one realistic mistake (see BUGS) so that the oracle can be seen catching it.
 */

declare(strict_types=1);

const PROTOCOL = 'pausecheck-oracle/1';
const ACTIONS = ['start-turn', 'call-tool', 'tool-returns', 'tool-fails', 'tool-interrupts', 'observe-again', 'poll',
                 'answer', 'node-fails', 'start-write-back', 'write-message', 'put-back', 'report-failure'];
const BUGS = [
    'interrupt-as-failure' => 'attempt trail: an interrupted attempt is recorded failed',
    'copy-not-take' => 'delivery: a write-back copies the held list instead of taking it',
    'forget-on-failure' => 'loss: a failed write-back does not put back what it took',
    'drop-oldest' => 'bound: an overflowing held list drops its oldest artifact instead of the newest',
    'new-before-held' => "ordering: the message lists the resumed segment's artifacts before the held ones",
];

/** An action this runtime cannot take in its current state: answered with {"ok": false}. */
final class Refused extends RuntimeException
{
}

/** One engine pass of an execution, in memory: lost if the process dies. */
final class Segment
{
    /** @var list<string> artifact refs the tools of this segment returned, in arrival order */
    public array $collected = [];
    /** @var list<string> what the write-back in flight took from the held list */
    public array $taken = [];
    public bool $final = true;
    public string $phase = 'working'; // working, taken, write failed, put back
}

final class Runtime
{
    private int $heldBound = 0;
    /** @var array<string, Segment> by execution id */
    private array $segments = [];
    /** The durable document; PHP arrays are values, so a copy of it is a transaction. */
    private array $store = ['runs' => [], 'warnings' => []];

    public function __construct(private readonly string $path, private readonly ?string $bug = null)
    {
    }

    // -- the store: one document, committed whole ---------------------------------------------

    private function commit(array $store): void
    {
        $temporary = $this->path . '.tmp';
        file_put_contents($temporary, json_encode($store, JSON_THROW_ON_ERROR));
        rename($temporary, $this->path); // atomic on POSIX: the old document or the new, never half
        $this->store = $store;
    }

    /** A crash and a restart: memory is gone, the store is read back. */
    private function restart(): void
    {
        $this->segments = [];
        $this->store = json_decode((string) file_get_contents($this->path), true, 512, JSON_THROW_ON_ERROR);
    }

    // -- the protocol -------------------------------------------------------------------------

    public function handle(array $request): array
    {
        try {
            switch ($request['type'] ?? null) {
                case 'hello':
                    return ['ok' => true, 'protocol' => PROTOCOL,
                            'name' => 'php-reference' . ($this->bug !== null ? " --bug {$this->bug}" : ''),
                            'actions' => ACTIONS, 'readings' => ['conformant'], 'held' => true, 'restart' => true];
                case 'reset': // forget everything; keep the bound of a held list (T7.13)
                    $this->heldBound = $request['bounds']['held_bound'];
                    $this->segments = [];
                    $this->commit(['runs' => [], 'warnings' => []]);
                    return ['ok' => true];
                case 'apply': // one step, one transaction: a refused step commits nothing
                    $store = $this->store;
                    $this->apply($store, $request['action'], $request['payload']);
                    $this->commit($store);
                    return ['ok' => true];
                case 'restart':
                    $this->restart();
                    return ['ok' => true];
                case 'observe':
                    $response = ['ok' => true, 'observation' => $this->observation()];
                    if ($request['held'] ?? false) { // white-box: never on the wire (T7.3)
                        // (object): an empty PHP array would be encoded [], the protocol wants {}
                        $response['held'] = (object) array_map(fn(array $run) => $run['held'], $this->store['runs']);
                    }
                    return $response;
                default:
                    throw new Refused('unknown request type ' . json_encode($request['type'] ?? null));
            }
        } catch (Throwable $error) {
            return ['ok' => false, 'error' => get_class($error) . ': ' . $error->getMessage()];
        }
    }

    // -- the rules ----------------------------------------------------------------------------

    private function apply(array &$store, array $action, array $payload): void
    {
        $kind = $action['kind'];
        if ($kind === 'start-turn') {
            $eid = $payload['execution'];
            $store['runs'][$eid] = ['session' => "s{$action['session']}", 'status' => 'running', 'unhandled' => 0,
                                    'write_failures' => 0, 'messages' => [], 'attempts' => [], 'questions' => [],
                                    'held' => []];
            $this->segments[$eid] = new Segment();
            return;
        }
        $eid = $action['execution'];
        if (!isset($store['runs'][$eid])) {
            throw new Refused("no execution $eid");
        }
        $run = &$store['runs'][$eid]; // a reference: the edits below are made in the transaction's copy
        switch ($kind) {
            case 'call-tool': // a fresh call: its first attempt runs
                $this->segment($eid);
                $run['attempts'][] = [$payload['call'], 'running'];
                break;
            case 'tool-returns':
                settle($run, $action['call'], 'running', 'completed');
                foreach ($payload['artifacts'] as $artifact) {
                    $this->segment($eid)->collected[] = $artifact['payload']['ref'];
                }
                break;
            case 'tool-fails': // a handled failure by construction: `unhandled` is untouched (G6.6, G6.8)
                settle($run, $action['call'], 'running', 'failed');
                break;
            case 'tool-interrupts':
                $this->pause($store, $run, $eid, $action['call'], $payload['question']);
                break;
            case 'observe-again': // the same interrupt seen again: no second question (G6.9)
            case 'poll': // a caller reads the turn: nothing changes, nothing held is shown (T7.3)
                break;
            case 'answer':
                $this->answer($run, $eid, $payload['question'], $action['approve']);
                break;
            case 'node-fails': // only a graph node failure with no error edge counts (ERR-9)
                if (!$action['routed']) {
                    $run['unhandled']++;
                }
                break;
            case 'start-write-back':
            case 'write-message':
            case 'put-back':
            case 'report-failure':
                $this->writeBack($kind, $run, $eid, $action);
                break;
            default:
                throw new Refused("unknown action $kind");
        }
    }

    private function segment(string $eid): Segment
    {
        return $this->segments[$eid] ?? throw new Refused("$eid has no segment running");
    }

    /** The attempt is interrupted, one question raised, the run paused, what was collected held. */
    private function pause(array &$store, array &$run, string $eid, string $call, string $question): void
    {
        // G6.1, G6.2: an interrupt is not a failure; the attempt says interrupted
        settle($run, $call, 'running', $this->bug === 'interrupt-as-failure' ? 'failed' : 'interrupted');
        $run['questions'][] = ['id' => $question, 'call' => $call, 'status' => 'pending']; // one per pause (G6.9)
        $run['status'] = 'paused';
        $segment = $this->segment($eid);
        unset($this->segments[$eid]);
        // T7.1, T7.2, T7.9: held durably against this execution, after whatever it already held
        $held = array_merge($run['held'], $segment->collected);
        // T7.13-T7.15: over the bound, the NEWEST are dropped, each with a warning
        $keep = $this->bug === 'drop-oldest'
            ? array_slice($held, max(0, count($held) - $this->heldBound))
            : array_slice($held, 0, $this->heldBound);
        $dropped = $this->bug === 'drop-oldest'
            ? array_slice($held, 0, count($held) - count($keep))
            : array_slice($held, $this->heldBound);
        $run['held'] = $keep;
        foreach ($dropped as $ref) {
            $store['warnings'][] = ['execution' => $eid, 'artifact' => $ref];
        }
    }

    private function answer(array &$run, string $eid, string $question, bool $approve): void
    {
        $index = array_search($question, array_column($run['questions'], 'id'), true);
        if ($index === false) {
            throw new Refused("$eid has no question $question");
        }
        $asked = &$run['questions'][$index];
        if ($asked['status'] !== 'pending') {
            return; // a late answer (another tab): nothing changes
        }
        $asked['status'] = $approve ? 'approved' : 'declined';
        // G6.4: the superseded interrupted attempt is closed as cancelled, not relabelled
        settle($run, $asked['call'], 'interrupted', 'cancelled');
        if ($approve) { // G6.3: the re-issued call is a new attempt of its own
            $run['attempts'][] = [$asked['call'], 'running'];
        }
        $run['status'] = 'running';
        $this->segments[$eid] = new Segment();
    }

    private function writeBack(string $kind, array &$run, string $eid, array $action): void
    {
        $segment = $this->segment($eid);
        if ($kind === 'start-write-back') {
            // T7.4, T7.7: the write-back TAKES the held list: it leaves the store now (a copy would be
            // delivered again by a retry after a failed write, T7.8)
            $segment->taken = $run['held'];
            $segment->final = $action['final'];
            $segment->phase = 'taken';
            if ($this->bug !== 'copy-not-take') {
                $run['held'] = [];
            }
        } elseif ($kind === 'write-message' && !$action['ok']) {
            $segment->phase = 'write failed'; // the store refused the message: nothing was written
        } elseif ($kind === 'write-message') {
            // T7.5, T7.6: the held ones first, then what the resumed segment collected, on one message
            $run['messages'][] = $this->bug === 'new-before-held'
                ? array_merge($segment->collected, $segment->taken)
                : array_merge($segment->taken, $segment->collected);
            $segment->taken = [];
            $segment->collected = [];
            $segment->phase = 'working';
            if ($segment->final) {
                unset($this->segments[$eid]);
                $run['status'] = verdict($run);
            }
        } elseif ($kind === 'put-back') {
            // T7.10, T7.12: a failed write puts back what it took, in front of the held list
            if ($this->bug !== 'forget-on-failure') {
                $run['held'] = array_merge($segment->taken, $run['held']);
            }
            $segment->taken = [];
            $segment->phase = 'put back';
        } else { // report-failure, only after the put-back (T7.11); the segment will retry
            $run['write_failures']++;
            $segment->phase = 'working';
        }
    }

    // -- what a caller sees -------------------------------------------------------------------

    private function observation(): array
    {
        $turns = [];
        foreach ($this->store['runs'] as $eid => $run) {
            $attempts = []; // each call's attempts, in creation order
            foreach ($run['attempts'] as [$call, $status]) {
                $attempts[$call][] = $status;
            }
            $turns[$eid] = ['session' => $run['session'], 'status' => $run['status'], 'unhandled' => $run['unhandled'],
                            'write_failures' => $run['write_failures'], 'messages' => $run['messages'],
                            'attempts' => (object) $attempts, 'questions' => $run['questions']];
        }
        return ['turns' => (object) $turns, 'warnings' => $this->store['warnings']];
    }
}

/** Move the latest attempt of $call from $old to $new. */
function settle(array &$run, string $call, string $old, string $new): void
{
    for ($i = count($run['attempts']) - 1; $i >= 0; $i--) {
        if ($run['attempts'][$i] === [$call, $old]) {
            $run['attempts'][$i][1] = $new;
            return;
        }
    }
    throw new Refused("$call has no $old attempt");
}

/** ORC-11: failed on an unhandled failure, paused while an attempt is interrupted (G6.5), else completed. */
function verdict(array $run): string
{
    if ($run['unhandled'] > 0) {
        return 'failed';
    }
    return in_array('interrupted', array_column($run['attempts'], 1), true) ? 'paused' : 'completed';
}

function main(array $argv): int
{
    $bug = null;
    for ($i = 1; $i < count($argv); $i++) {
        if ($argv[$i] === '--bug' && isset($argv[$i + 1]) && isset(BUGS[$argv[$i + 1]])) {
            $bug = $argv[++$i];
        } else {
            $usage = "usage: php runtime.php [--bug NAME]\nbugs:\n";
            foreach (BUGS as $name => $what) {
                $usage .= "  $name: $what\n";
            }
            fwrite(STDERR, $usage);
            return $argv[$i] === '--help' || $argv[$i] === '-h' ? 0 : 2;
        }
    }
    // A PHP warning (a missing key, say) would be printed on stdout, in the middle of the protocol:
    // send diagnostics to stderr and turn every warning into an exception, answered as a refusal.
    ini_set('display_errors', 'stderr');
    set_error_handler(function (int $severity, string $message, string $file, int $line): never {
        throw new ErrorException($message, 0, $severity, $file, $line);
    });
    $folder = sys_get_temp_dir() . '/flowdrop-php-' . bin2hex(random_bytes(6));
    mkdir($folder, 0700);
    $path = "$folder/store.json";
    $runtime = new Runtime($path, $bug);
    try {
        // pausecheck may pipeline several requests: answer each line as it comes, never wait for more
        while (($line = fgets(STDIN)) !== false) {
            try {
                $request = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
                $response = is_array($request) ? $runtime->handle($request)
                    : ['ok' => false, 'error' => 'not a JSON object'];
            } catch (JsonException $error) {
                $response = ['ok' => false, 'error' => 'not JSON: ' . $error->getMessage()];
            }
            fwrite(STDOUT, json_encode($response, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR) . "\n");
            fflush(STDOUT);
        }
    } finally {
        foreach ([$path, "$path.tmp"] as $file) {
            if (is_file($file)) {
                unlink($file);
            }
        }
        rmdir($folder);
    }
    return 0;
}

exit(main($argv));
