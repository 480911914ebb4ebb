//! https (`--tls`): a self-signed certificate for `localhost` and `127.0.0.1`, made on the
//! first start and kept in the data directory (as the emulator keeps its own), so clients can
//! trust it once: `gateway-cert.pem` (public) and `gateway-key.pem` (owner-only).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

pub const CERT_FILE: &str = "gateway-cert.pem";
pub const KEY_FILE: &str = "gateway-key.pem";

/// The certificate's path in `dir` (created by `server_config` when missing).
pub fn cert_path(dir: &Path) -> PathBuf {
    dir.join(CERT_FILE)
}

fn create(cert: &Path, key: &Path) -> Result<(), String> {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
        .map_err(|e| format!("making a self-signed certificate: {e}"))?;
    let write = |path: &Path, text: String, mode: u32| -> Result<(), String> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        f.write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    write(key, made.signing_key.serialize_pem(), 0o600)?;
    write(cert, made.cert.pem(), 0o644)
}

/// The TLS configuration over the certificate in `dir`, made first if there is none.
pub fn server_config(dir: &Path) -> Result<rustls::ServerConfig, String> {
    let (cert, key) = (dir.join(CERT_FILE), dir.join(KEY_FILE));
    if !cert.exists() || !key.exists() {
        let _ = std::fs::remove_file(&cert);
        let _ = std::fs::remove_file(&key);
        create(&cert, &key)?;
    }
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert)
        .and_then(|it| it.collect())
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    let private =
        PrivateKeyDer::from_pem_file(&key).map_err(|e| format!("{}: {e}", key.display()))?;
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_no_client_auth()
    .with_single_cert(chain, private)
    .map_err(|e| format!("{}: {e}", cert.display()))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}
