//! Running an external program under a time limit: its output is collected as
//! [`std::process::Command::output`] collects it, and a program still running at the deadline is
//! killed. Used by [`super::run_at`] for the tools that have a limit ([`super::time_limit`]).

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Runs `cmd` to completion and returns its output, or `Ok(None)` when it was still running after
/// `limit` (it is then killed and reaped). Standard input is closed, as with `output()`.
pub fn output(cmd: &mut Command, limit: Duration) -> std::io::Result<Option<Output>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Both pipes are drained on their own threads so that a program writing more than a pipe
    // holds is never stopped waiting for us while we wait for it.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let now = Instant::now();
        if now >= deadline {
            // The program may end between the check and the kill; either way it is reaped.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(status.map(|status| Output {
        status,
        stdout,
        stderr,
    }))
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_ends_in_time_gives_its_output() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "printf out; printf err >&2; exit 3"]);
        let out = output(&mut cmd, Duration::from_secs(30)).unwrap().unwrap();
        assert_eq!(out.stdout, b"out");
        assert_eq!(out.stderr, b"err");
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn a_program_past_its_limit_is_stopped() {
        let start = Instant::now();
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        assert!(output(&mut cmd, Duration::from_millis(200))
            .unwrap()
            .is_none());
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn output_larger_than_a_pipe_is_read_whole() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "head -c 1000000 /dev/zero; head -c 300000 /dev/zero >&2",
        ]);
        let out = output(&mut cmd, Duration::from_secs(30)).unwrap().unwrap();
        assert_eq!(out.stdout.len(), 1_000_000);
        assert_eq!(out.stderr.len(), 300_000);
    }
}
