//! Signed policy bundles (SEMANTICS 13.15 Signatures): the signed text is
//! `version|createdAtUtc|author|policyContentJson` with `createdAtUtc` exactly as sent; ECDSA
//! P-256/SHA-256 signatures as IEEE P1363 `r||s` (DER also accepted), or Ed25519 when the key
//! is one. Keys are SPKI DER in base64; private keys PKCS#8 DER in base64.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

use crate::Error;
use crate::governor::wire::PolicyBundle;

/// Signature algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAlgorithm {
    /// ECDSA P-256 with SHA-256 (LeaseGate's).
    P256,
    /// Ed25519.
    Ed25519,
}

/// A public key that may verify bundles.
#[derive(Clone, Debug)]
pub enum BundleKey {
    /// ECDSA P-256.
    P256(p256::ecdsa::VerifyingKey),
    /// Ed25519.
    Ed25519(ed25519_dalek::VerifyingKey),
}

impl BundleKey {
    /// Parses an SPKI DER key in base64 (the algorithm comes from the key).
    pub fn from_spki_base64(text: &str) -> crate::Result<BundleKey> {
        let der = B64
            .decode(text.trim())
            .map_err(|_| Error::invalid("public key is not base64"))?;
        {
            use ed25519_dalek::pkcs8::DecodePublicKey;
            if let Ok(k) = ed25519_dalek::VerifyingKey::from_public_key_der(&der) {
                return Ok(BundleKey::Ed25519(k));
            }
        }
        {
            use p256::pkcs8::DecodePublicKey;
            if let Ok(k) = p256::ecdsa::VerifyingKey::from_public_key_der(&der) {
                return Ok(BundleKey::P256(k));
            }
        }
        Err(Error::invalid(
            "public key is neither an Ed25519 nor a P-256 SPKI DER key",
        ))
    }

    /// Verifies `sig` over `msg`.
    pub fn verify(&self, msg: &[u8], sig: &[u8]) -> bool {
        match self {
            BundleKey::P256(k) => {
                use p256::ecdsa::signature::Verifier;
                let sig = p256::ecdsa::Signature::from_slice(sig)
                    .or_else(|_| p256::ecdsa::Signature::from_der(sig));
                sig.is_ok_and(|s| k.verify(msg, &s).is_ok())
            }
            BundleKey::Ed25519(k) => {
                let Ok(bytes) = <[u8; 64]>::try_from(sig) else {
                    return false;
                };
                let s = ed25519_dalek::Signature::from_bytes(&bytes);
                k.verify_strict(msg, &s).is_ok()
            }
        }
    }
}

/// The signed text of a bundle.
pub fn signed_text(b: &PolicyBundle) -> String {
    format!(
        "{}|{}|{}|{}",
        b.version, b.created_at_utc, b.author, b.policy_content_json
    )
}

/// True when the bundle's signature verifies with one of `keys`.
pub fn verify_bundle(b: &PolicyBundle, keys: &[BundleKey]) -> bool {
    let Ok(sig) = B64.decode(b.signature_base64.trim()) else {
        return false;
    };
    let msg = signed_text(b);
    keys.iter().any(|k| k.verify(msg.as_bytes(), &sig))
}

/// A private signing key (P-256 or Ed25519), parsed from PKCS#8 DER in base64.
pub enum PrivateKey {
    /// ECDSA P-256.
    P256(p256::ecdsa::SigningKey),
    /// Ed25519.
    Ed25519(ed25519_dalek::SigningKey),
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key material.
        write!(f, "PrivateKey({:?})", self.algorithm())
    }
}

impl PrivateKey {
    /// Parses a PKCS#8 DER private key in base64 (the algorithm comes from the key).
    pub fn from_pkcs8_base64(text: &str) -> crate::Result<PrivateKey> {
        let der = B64
            .decode(text.trim())
            .map_err(|_| Error::invalid("private key is not base64"))?;
        {
            use ed25519_dalek::pkcs8::DecodePrivateKey;
            if let Ok(k) = ed25519_dalek::SigningKey::from_pkcs8_der(&der) {
                return Ok(PrivateKey::Ed25519(k));
            }
        }
        {
            use p256::pkcs8::DecodePrivateKey;
            if let Ok(k) = p256::ecdsa::SigningKey::from_pkcs8_der(&der) {
                return Ok(PrivateKey::P256(k));
            }
        }
        Err(Error::invalid(
            "private key is neither an Ed25519 nor a P-256 PKCS#8 DER key",
        ))
    }

    /// The algorithm.
    pub fn algorithm(&self) -> KeyAlgorithm {
        match self {
            PrivateKey::P256(_) => KeyAlgorithm::P256,
            PrivateKey::Ed25519(_) => KeyAlgorithm::Ed25519,
        }
    }

    /// Signs `msg`: P-256 as IEEE P1363 `r||s`, Ed25519 as its 64 bytes.
    pub fn sign(&self, msg: &[u8]) -> Vec<u8> {
        match self {
            PrivateKey::Ed25519(k) => {
                use ed25519_dalek::Signer;
                k.sign(msg).to_bytes().to_vec()
            }
            PrivateKey::P256(k) => {
                use p256::ecdsa::signature::Signer;
                let s: p256::ecdsa::Signature = k.sign(msg);
                s.to_bytes().to_vec()
            }
        }
    }

    /// The public key as SPKI DER in base64.
    pub fn public_spki_base64(&self) -> crate::Result<String> {
        let internal = |e: String| Error::new(crate::ErrorCode::InternalError, e);
        let der = match self {
            PrivateKey::Ed25519(k) => {
                use ed25519_dalek::pkcs8::EncodePublicKey;
                k.verifying_key().to_public_key_der()
            }
            PrivateKey::P256(k) => {
                use p256::pkcs8::EncodePublicKey;
                k.verifying_key().to_public_key_der()
            }
        }
        .map_err(|e| internal(e.to_string()))?;
        Ok(B64.encode(der.as_bytes()))
    }
}

/// Signs a bundle in place with a PKCS#8 DER private key in base64 (P-256 or Ed25519).
pub fn sign_bundle(b: &mut PolicyBundle, private_key_base64: &str) -> crate::Result<()> {
    let key = PrivateKey::from_pkcs8_base64(private_key_base64)?;
    b.signature_base64 = B64.encode(key.sign(signed_text(b).as_bytes()));
    Ok(())
}

/// Generates a key pair: (PKCS#8 DER private key, SPKI DER public key), both base64.
pub fn generate_key(alg: KeyAlgorithm) -> crate::Result<(String, String)> {
    let internal = |e: String| Error::new(crate::ErrorCode::InternalError, e);
    let mut seed = [0u8; 32];
    match alg {
        KeyAlgorithm::Ed25519 => {
            getrandom::fill(&mut seed).map_err(|e| internal(format!("no randomness: {e}")))?;
            let k = ed25519_dalek::SigningKey::from_bytes(&seed);
            use ed25519_dalek::pkcs8::{EncodePrivateKey, EncodePublicKey};
            let private = k.to_pkcs8_der().map_err(|e| internal(e.to_string()))?;
            let public = k
                .verifying_key()
                .to_public_key_der()
                .map_err(|e| internal(e.to_string()))?;
            Ok((
                B64.encode(private.as_bytes()),
                B64.encode(public.as_bytes()),
            ))
        }
        KeyAlgorithm::P256 => {
            let k = loop {
                getrandom::fill(&mut seed).map_err(|e| internal(format!("no randomness: {e}")))?;
                if let Ok(k) = p256::ecdsa::SigningKey::from_slice(&seed) {
                    break k;
                }
            };
            use p256::pkcs8::{EncodePrivateKey, EncodePublicKey};
            let private = k.to_pkcs8_der().map_err(|e| internal(e.to_string()))?;
            let public = k
                .verifying_key()
                .to_public_key_der()
                .map_err(|e| internal(e.to_string()))?;
            Ok((
                B64.encode(private.as_bytes()),
                B64.encode(public.as_bytes()),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_and_verify_both_algorithms() {
        for alg in [KeyAlgorithm::P256, KeyAlgorithm::Ed25519] {
            let (private, public) = generate_key(alg).unwrap();
            let key = BundleKey::from_spki_base64(&public).unwrap();
            let mut b = PolicyBundle {
                version: "v2".into(),
                created_at_utc: "2026-01-01T00:00:00Z".into(),
                author: "ops".into(),
                policy_content_json: "{\"maxInFlight\":2}".into(),
                signature_base64: String::new(),
            };
            sign_bundle(&mut b, &private).unwrap();
            assert!(verify_bundle(&b, std::slice::from_ref(&key)));
            b.policy_content_json = "{\"maxInFlight\":3}".into();
            assert!(!verify_bundle(&b, &[key]));
        }
    }
}
