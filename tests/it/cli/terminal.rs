//! Colour on a terminal: the commands run on a pseudo-terminal (`openpty`) colour their
//! output, and do not with `NO_COLOR`, with `--color never`, or when piped.

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

use super::{assert_plain, esker_command};
use crate::support::{esker_bin, fixture_store};

/// Runs `command` with stdout and stderr on a new pseudo-terminal; returns what it printed.
fn output_on_terminal(mut command: Command) -> String {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    // SAFETY: openpty writes two new descriptors into the given ints and reads no other
    // argument when they are null.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty failed");
    // SAFETY: both descriptors were just opened by openpty and are owned by nobody else.
    let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave.try_clone().expect("dup pty")))
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().expect("esker starts on the pty");
    // The parent's copies of the terminal side must close, or reading never ends.
    drop(command);
    let mut output = Vec::new();
    let mut reader = master;
    let mut buffer = [0u8; 4096];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => output.extend_from_slice(&buffer[..read]),
            // Linux answers EIO once the terminal side is closed: the end of the output.
            Err(_) => break,
        }
    }
    child.wait().expect("esker exits");
    String::from_utf8_lossy(&output).into_owned()
}

fn search_command(extra_env: &[(&str, &str)], extra_args: &[&str]) -> Command {
    let store = fixture_store().to_str().unwrap().to_owned();
    let home = std::env::temp_dir();
    let mut args = vec!["search", "--data-dir", store.as_str()];
    args.extend_from_slice(extra_args);
    args.push("migration");
    let mut command = esker_command(&home, &args);
    command.env("TERM", "xterm-256color");
    for (name, value) in extra_env {
        command.env(name, value);
    }
    command
}

#[test]
fn commands_colour_a_terminal_and_nothing_else() {
    assert!(std::path::Path::new(esker_bin()).exists());
    let on_terminal = output_on_terminal(search_command(&[], &[]));
    assert!(on_terminal.contains("esker show event:"), "{on_terminal}");
    assert!(
        on_terminal.contains("\u{1b}["),
        "no colour on a terminal: {on_terminal:?}"
    );

    let no_color = output_on_terminal(search_command(&[("NO_COLOR", "1")], &[]));
    assert!(no_color.contains("esker show event:"), "{no_color}");
    assert!(
        !no_color.contains("\u{1b}["),
        "colour despite NO_COLOR: {no_color:?}"
    );

    let never = output_on_terminal(search_command(&[], &["--color", "never"]));
    assert!(!never.contains("\u{1b}["), "colour despite --color never");

    // Log lines on the terminal follow the same choice.
    let logged = output_on_terminal(search_command(
        &[("ESKER_LOG", "esker=debug"), ("NO_COLOR", "1")],
        &[],
    ));
    assert!(logged.contains("named query"), "{logged}");
    assert!(
        !logged.contains("\u{1b}["),
        "coloured log lines despite NO_COLOR: {logged:?}"
    );
    let logged = output_on_terminal(search_command(
        &[("ESKER_LOG", "esker=debug")],
        &["--color", "never"],
    ));
    assert!(logged.contains("named query"), "{logged}");
    assert!(
        !logged.contains("\u{1b}["),
        "coloured log lines despite --color never: {logged:?}"
    );

    let piped = search_command(&[], &[]).output().unwrap();
    assert_plain(&piped);
    let forced = search_command(&[], &["--color", "always"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&forced.stdout).contains("\u{1b}["));
}
