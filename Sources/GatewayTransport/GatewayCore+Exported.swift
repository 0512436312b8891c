// A certificate and its key as files (`CertificateKeyPair`) live in GatewayCore, where the
// platform-neutral client channel names them too; users of the transport keep seeing the type
// through this module.
@_exported import struct GatewayCore.CertificateKeyPair
