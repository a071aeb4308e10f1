//! The JSON-RPC transport: one client on a byte stream pair (`hone app-server`: stdin and
//! stdout), one message per line.

use std::sync::Arc;

use hone_api::rpc::decode_call;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::server::Server;

/// Serves one client reading calls from `input` and writing responses and events to
/// `output`, until `input` ends; then the client's sessions are shut down and drained
/// (everything stored) before this returns. Nothing but JSON-RPC is written to `output`.
pub async fn serve_stdio<R, W>(server: Arc<Server>, input: R, mut output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (connection, mut outgoing) = server.connect();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            let mut line = message.to_line();
            line.push('\n');
            output.write_all(line.as_bytes()).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut lines = BufReader::new(input).lines();
    let read = loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.trim().is_empty() => {}
            Ok(Some(line)) => match decode_call(&line) {
                Ok(call) => connection.handle(call),
                Err(refusal) => connection.send(refusal.into()),
            },
            Ok(None) => break Ok(()),
            Err(error) => break Err(error),
        }
    };
    connection.disconnect();
    drop(connection);
    server.idle().await;
    // The writer ends once the last task holding the client has finished.
    writer
        .await
        .map_err(|error| std::io::Error::other(error.to_string()))??;
    read
}
