// OpenSSL's libcrypto, for SHA-256 on Linux (Apple platforms use CommonCrypto instead).
// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, but they are kept,
// need no allocation, and make the context a plain value; silence the deprecation here.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
