//! The `locstore` command line: parses arguments and hands over to the library.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator: the server makes many small, short-lived
/// allocations per request next to a large, long-lived catalog, where glibc's heap spends
/// much of a request's time in malloc, free and consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use locstore::client::{self, Ending, Failure};
use locstore::config::{Cli, ClientArgs, Command, Config, LogFormat, PushMode, TokenCommand};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve(_)) {
        end_quietly_on_a_closed_pipe();
    }
    let result = match cli.command {
        Command::Serve(args) => Config::resolve(*args).and_then(|config| {
            init_logging(config.log_format);
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(locstore::app::serve(config))
        }),
        Command::Token(TokenCommand::Create(args)) => create_token(args),
        Command::Init(args) => return init(args),
        Command::Push(args) => {
            let options = client::PushOptions {
                dry_run: args.dry_run,
                mode: args.mode.map(|mode| match mode {
                    PushMode::Create => "create".to_owned(),
                    PushMode::Upsert => "upsert".to_owned(),
                }),
                fail_on_change: args.fail_on_change,
                add_languages: !args.no_add_languages,
                strict: args.strict,
            };
            return client_exit(client::push(&client_common(args.client), &options));
        }
        Command::Pull(args) => {
            let options = client::PullOptions {
                at: args.at,
                check: args.check,
            };
            return client_exit(client::pull(&client_common(args.client), &options));
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("locstore: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn client_common(args: ClientArgs) -> client::Common {
    client::Common {
        settings_file: args.settings_file,
        json: args.json,
        branch: args.branch,
        token: std::env::var(client::TOKEN_VARIABLE).ok(),
    }
}

/// The client's exit statuses: 0 done, 1 flagged (a change or a difference), 2 failed.
fn client_exit(result: Result<Ending, Failure>) -> ExitCode {
    match result {
        Ok(Ending::Done) => ExitCode::SUCCESS,
        Ok(Ending::Flagged) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("locstore: {message}");
            ExitCode::from(2)
        }
    }
}

fn init(args: locstore::config::InitArgs) -> ExitCode {
    match client::init(&args.dir, &args.server, &args.project, args.force) {
        Ok((path, found)) => {
            println!("wrote {}", path.display());
            if found.is_empty() {
                println!("found no resource files; add a [[files]] entry by hand");
            }
            for set in found {
                println!("  {set}");
            }
            if args.create {
                let common = client_common(ClientArgs {
                    settings_file: Some(path),
                    json: false,
                    branch: None,
                });
                match client::create_project(&common, args.base_language.as_deref()) {
                    Ok(Some(languages)) => println!("created project {} ({})", args.project, languages.join(", ")),
                    Ok(None) => println!("project {} exists", args.project),
                    Err(Failure(message)) => {
                        eprintln!("locstore: {message}");
                        return ExitCode::from(2);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Err(Failure(message)) => {
            eprintln!("locstore: {message}");
            ExitCode::from(2)
        }
    }
}

fn create_token(args: locstore::config::TokenCreateArgs) -> anyhow::Result<()> {
    let file = locstore::config::tokens_file_for(&args.common)?;
    let token = locstore::tokens::create_token(&file, &args.name, args.access, &args.teams)?;
    println!("{token}");
    eprintln!(
        "Created token {:?}; only its hash is recorded, in {}. It is shown only this once.",
        args.name,
        file.display()
    );
    Ok(())
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colours only on a terminal: a log file or journal gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).init(),
    }
}

/// The command-line tools write to stdout: when its reader goes away (`locstore pull | head`)
/// they end as other tools do, by SIGPIPE, instead of panicking on the broken pipe. The
/// server keeps Rust's default (the signal ignored), so that a closed socket is an error it
/// handles.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: the default action of SIGPIPE, set before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
