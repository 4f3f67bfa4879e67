//! The file commands: `generate N FILE` writes frames of generated issues,
//! `judge FILE` judges a file of frames with both readers.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use bytes::BytesMut;

use crate::exit::{RunError, EXIT_FAILURE};
use crate::frames::encode;
use crate::generate::{Gen, Generate};
use crate::judge::{judge_stream, Judged};
use crate::model::Issue;
use crate::policy::Policy;
use crate::pool::{MESSAGE_SIZE, SEED};
use crate::report;

/// Writes `count` frames, each a distinct issue generated at the stream's
/// size, to `out`. Costs a generation and a serialization per message;
/// memory for one message. Returns the bytes written.
///
/// # Errors
///
/// The writer's error.
pub fn generate(count: u64, out: &mut impl Write) -> io::Result<u64> {
    let mut g = Gen::new(SEED, MESSAGE_SIZE);
    let mut frame = BytesMut::new();
    let mut written = 0;
    for _ in 0..count {
        frame.clear();
        encode(&Issue::generate(&mut g).to_json(), &mut frame)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))?;
        out.write_all(&frame)?;
        written += frame.len() as u64;
    }
    Ok(written)
}

/// `generate N FILE`: [`generate`] into FILE, or stdout for `-`.
///
/// # Errors
///
/// A [`RunError`] naming the file (`stdout` for `-`) when it cannot be
/// created or written.
pub fn generate_file(count: u64, file: &str) -> Result<(), RunError> {
    let name = if file == "-" { "stdout" } else { file };
    let fail = |err: io::Error| RunError::failed(format!("generate: writing {name}: {err}"));
    if file == "-" {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        generate(count, &mut out).map_err(fail)?;
        out.flush().map_err(fail)
    } else {
        let mut out = BufWriter::new(File::create(file).map_err(fail)?);
        let bytes = generate(count, &mut out).map_err(fail)?;
        out.flush().map_err(fail)?;
        super::warn(format_args!(
            "generate: wrote {count} frames ({bytes} bytes) to {file}\n"
        ));
        Ok(())
    }
}

/// `judge FILE`: reads FILE (or stdin for `-`) as it comes, judges it with
/// [`judge_stream`] (memory for one frame and a read, however long the
/// input) and writes both tables and the disagreements to `out`.
///
/// # Errors
///
/// A [`RunError`] ([`EXIT_FAILURE`]) when the file cannot be opened or
/// read, the stream has a framing error, or the readers disagree on any
/// message; the message says which frame, and where.
pub fn judge_file(file: &str, out: &mut impl Write) -> Result<Judged, RunError> {
    let name = if file == "-" { "stdin" } else { file };
    let judged = if file == "-" {
        judge_stream(io::stdin().lock(), &Policy::default())
    } else {
        let input = File::open(file)
            .map_err(|err| RunError::failed(format!("judge: reading {name}: {err}")))?;
        // Opened, a directory fails only at its first read, which would
        // come after an empty report.
        if input.metadata().is_ok_and(|meta| meta.is_dir()) {
            return Err(RunError::failed(format!(
                "judge: reading {name}: a directory, not a file of frames"
            )));
        }
        judge_stream(input, &Policy::default())
    };
    out.write_all(report::judged(name, &judged).as_bytes())
        .map_err(|err| RunError::failed(format!("judge: writing the report: {err}")))?;

    if let Some(err) = &judged.error {
        return Err(RunError {
            code: EXIT_FAILURE,
            message: format!(
                "judge: {name}: {err}; {}",
                match judged.optics.messages {
                    0 => "no frame came before it".to_owned(),
                    1 => "the frame before it was judged".to_owned(),
                    n => format!("the {n} frames before it were judged"),
                }
            ),
        });
    }
    if let Some(first) = judged.disagreements.first() {
        return Err(RunError::failed(format!(
            "judge: {name}: the readers disagree on {} of {} messages; the first at {first}",
            judged.disagreements.len(),
            judged.optics.messages
        )));
    }
    Ok(judged)
}
