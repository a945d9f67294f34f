//! The `locstore` command line: parses arguments and hands over to the library.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator: the server makes many small, short-lived
/// allocations per request next to a large, long-lived catalog, where glibc's heap spends
/// much of a request's time in malloc, free and consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use locstore::config::{Cli, Command, Config, LogFormat, TokenCommand};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => Config::resolve(args).and_then(|config| {
            init_logging(config.log_format);
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(locstore::app::serve(config))
        }),
        Command::Token(TokenCommand::Create(args)) => create_token(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("locstore: {err:#}");
            ExitCode::FAILURE
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
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).init(),
    }
}
