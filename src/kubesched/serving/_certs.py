"""TLS for the serving endpoints: a certificate given by files, or a self-signed one made at
start, as kube-scheduler's SecureServingOptions.MaybeDefaultWithSelfSignedCerts does when
``--tls-cert-file`` is not set (certutil.GenerateSelfSignedCertKey, kept in memory: the
scheduler's ``--cert-dir`` is empty by default).

Upstream's self-signed pair is a throw-away CA and a serving certificate it signs; one
self-signed serving certificate is equivalent for the clients that accept it (the kubelet's
HTTPS probes do not verify), so that is what is made here: RSA 2048, one year, the name
``localhost@<unix time>``, SANs ``localhost``, 127.0.0.1 and the bind address when it is a
specific IP.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl
import tempfile

__all__ = ["self_signed_context", "tls_context_from_files"]


def tls_context_from_files(cert_file: str, key_file: str) -> ssl.SSLContext:
    """A server context for ``--tls-cert-file`` / ``--tls-private-key-file``."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_file, key_file)
    return ctx


def self_signed_context(bind_host: str) -> ssl.SSLContext:
    """A server context holding a fresh self-signed certificate for ``bind_host``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"localhost@{int(now.timestamp())}")])
    ips: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ipaddress.ip_address("127.0.0.1")]
    try:
        bound = ipaddress.ip_address(bind_host)
    except ValueError:
        bound = None
    if bound is not None and not bound.is_unspecified and bound not in ips:
        ips.append(bound)
    dns = ["localhost"]
    hostname = socket.gethostname()
    if hostname and hostname not in dns:
        dns.append(hostname)
    sans: list[x509.GeneralName] = [x509.DNSName(d) for d in dns] + [x509.IPAddress(i) for i in ips]
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                                         content_commitment=False, data_encipherment=False,
                                         key_agreement=False, crl_sign=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # ssl loads a chain only from a file: one that lives for the duration of the load
    with tempfile.TemporaryDirectory(prefix="kubesched-serving-") as d:
        path = os.path.join(d, "serving.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(path)
    return ctx
