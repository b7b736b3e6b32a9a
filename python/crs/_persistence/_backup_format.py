"""The backup file and metadata formats: `BackupImage`, `BackupMetadata`, encode/decode.

Backup file format (version `BACKUP_FORMAT_VERSION`), little-endian::

    b"CRSBKUP\\0" | u32 format_version | u64 journal_position | u64 generation
                 | u64 image_length | lz4 frame (content checksum on) of the image

`content_hash` in the metadata is the SHA-256 of the whole file; `metadata_hash` is the SHA-256
of the metadata's compact JSON (fields in declaration order) without that field.
"""

from __future__ import annotations

import hashlib
import json
import struct
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple

import lz4.frame

from crs._errors import (
    BackupCorruptedError,
    BackupVersionMismatchError,
    InvalidArgumentError,
    MetadataCorruptedError,
    SchemaVersionMismatchError,
)

__all__ = [
    "BACKUP_FORMAT_VERSION",
    "CURRENT_SCHEMA_VERSION",
    "BackupImage",
    "BackupMetadata",
    "LoadedBackup",
    "check_image",
    "decode_backup",
    "encode_backup",
    "parse_metadata",
]

CURRENT_SCHEMA_VERSION = "1.0"
"""Version of the metadata schema (`BackupMetadata.schema_version`)."""

BACKUP_FORMAT_VERSION = 1
"""Version of the backup file format (replaces the Go package's `BadgerDBVersion`)."""

_MAGIC = b"CRSBKUP\0"
_HEADER = struct.Struct("<8sIQQQ")


class BackupImage(NamedTuple):
    """A whole state image and the journal position it covers.

    `data` is a versioned document whose content the producer (the CRS) decides; the
    persistence layer stores it byte for byte. `journal_position` is the sequence number of
    the last journal record the image includes (0 = none), so restore replays records after
    it. `generation` is the state's generation when the image was taken.
    """

    data: bytes
    journal_position: int
    generation: int


@dataclass(frozen=True)
class BackupMetadata:
    """What a backup holds, and the hashes that verify it (stored as `metadata.json`).

    Attributes:
        project_hash: The project key the backup belongs to.
        created_at: Creation time, Unix milliseconds UTC.
        format_version: Backup file format version (`BACKUP_FORMAT_VERSION`).
        content_hash: SHA-256 hex of the backup file.
        uncompressed_size: Size of the image in bytes.
        compressed_size: Size of the backup file in bytes.
        generation: State generation of the image.
        session_id: Session that wrote the backup.
        delta_count: Journal records the image covers (equal to `journal_position`, since
            sequence numbers never skip).
        journal_position: Sequence number of the last journal record in the image.
        schema_version: Metadata schema version (`CURRENT_SCHEMA_VERSION`).
        lock_file_hash: Dependency lock-file hash at save time ("" if not given).
        export_path: Path of the JSON export written with this backup ("" if none).
        metadata_hash: SHA-256 hex of the compact JSON of the other fields.
    """

    project_hash: str = ""
    created_at: int = 0
    format_version: int = 0
    content_hash: str = ""
    uncompressed_size: int = 0
    compressed_size: int = 0
    generation: int = 0
    session_id: str = ""
    delta_count: int = 0
    journal_position: int = 0
    schema_version: str = ""
    lock_file_hash: str = ""
    export_path: str = ""
    metadata_hash: str = ""

    def age(self) -> float:
        """Seconds since the backup was created."""
        return max(0.0, time.time() - self.created_at / 1000.0)

    def compression_ratio(self) -> float:
        """compressed / uncompressed size (0.0 when the image is empty)."""
        if self.uncompressed_size == 0:
            return 0.0
        return self.compressed_size / self.uncompressed_size

    def compute_metadata_hash(self) -> str:
        """SHA-256 hex of the compact JSON of every field except `metadata_hash`."""
        doc = _metadata_dict(self)
        del doc["metadata_hash"]
        blob = json.dumps(doc, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(blob.encode("ascii")).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of `metadata.json` (field order fixed)."""
        return _metadata_dict(self)


_META_FIELDS = tuple(f.name for f in fields(BackupMetadata))
_META_TYPES: dict[str, type] = {
    f.name: (int if f.type in ("int", int) else str) for f in fields(BackupMetadata)
}


def _metadata_dict(meta: BackupMetadata) -> dict[str, Any]:
    return {name: getattr(meta, name) for name in _META_FIELDS}


def parse_metadata(raw: bytes, path: Path) -> BackupMetadata:
    """Decode and verify a metadata file; any damage is a `MetadataCorruptedError`."""
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MetadataCorruptedError(f"metadata {path} is not valid JSON: {exc}") from exc
    if not isinstance(doc, dict) or set(doc) != set(_META_FIELDS):
        raise MetadataCorruptedError(f"metadata {path} does not have the expected fields")
    for name, kind in _META_TYPES.items():
        value = doc[name]
        if type(value) is not kind:
            raise MetadataCorruptedError(
                f"metadata {path}: field {name!r} must be {kind.__name__}, got {value!r}"
            )
    meta = BackupMetadata(**doc)
    # An empty metadata_hash is damage, not a way to skip the check (Go bug §8.19).
    computed = meta.compute_metadata_hash()
    if meta.metadata_hash != computed:
        raise MetadataCorruptedError(
            f"metadata corrupted: hash mismatch in {path} "
            f"(stored {meta.metadata_hash!r}, computed {computed!r})"
        )
    if meta.schema_version != CURRENT_SCHEMA_VERSION:
        raise SchemaVersionMismatchError(
            f"schema version mismatch: metadata {path} has schema_version "
            f"{meta.schema_version!r}; this crs reads {CURRENT_SCHEMA_VERSION!r}"
        )
    if meta.format_version != BACKUP_FORMAT_VERSION:
        raise BackupVersionMismatchError(
            f"backup format version {meta.format_version} in {path}; "
            f"this crs reads version {BACKUP_FORMAT_VERSION}"
        )
    return meta


class LoadedBackup(NamedTuple):
    """Result of `PersistenceManager.load_backup`: the verified image and its metadata."""

    image: BackupImage
    metadata: BackupMetadata


def encode_backup(image: BackupImage, compression_level: int) -> tuple[bytes, bytes]:
    """Return (header, lz4 frame) of the backup file for `image`."""
    data = image.data
    frame = lz4.frame.compress(
        data,
        compression_level=compression_level,
        content_checksum=True,
        store_size=True,
    )
    header = _HEADER.pack(
        _MAGIC, BACKUP_FORMAT_VERSION, image.journal_position, image.generation, len(data)
    )
    return header, frame


def decode_backup(blob: bytes, path: Path) -> BackupImage:
    """Parse a backup file; any damage is a `BackupCorruptedError`."""
    if len(blob) < _HEADER.size:
        raise BackupCorruptedError(f"backup {path} is truncated ({len(blob)} bytes)")
    magic, version, position, generation, length = _HEADER.unpack_from(blob)
    if magic != _MAGIC:
        raise BackupCorruptedError(f"backup {path} is not a crs backup (bad magic)")
    if version != BACKUP_FORMAT_VERSION:
        raise BackupVersionMismatchError(
            f"backup {path} has format version {version}; this crs reads version "
            f"{BACKUP_FORMAT_VERSION}"
        )
    try:
        data = lz4.frame.decompress(memoryview(blob)[_HEADER.size :])
    except RuntimeError as exc:
        raise BackupCorruptedError(f"backup {path} failed to decompress: {exc}") from exc
    if len(data) != length:
        raise BackupCorruptedError(
            f"backup {path} holds {len(data)} image bytes, its header says {length}"
        )
    return BackupImage(data=data, journal_position=position, generation=generation)


def check_image(image: object) -> None:
    if not isinstance(image, BackupImage):
        raise InvalidArgumentError(
            f"export_image() must return a BackupImage, got {type(image).__name__}"
        )
    if not isinstance(image.data, bytes | bytearray):
        raise InvalidArgumentError(
            f"BackupImage.data must be bytes, got {type(image.data).__name__}"
        )
    for name in ("journal_position", "generation"):
        value = getattr(image, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 63:
            raise InvalidArgumentError(
                f"BackupImage.{name} must be an int in [0, 2**63), got {value!r}"
            )
