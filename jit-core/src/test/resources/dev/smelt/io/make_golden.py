# SPDX-License-Identifier: Apache-2.0
"""Writes the golden files NpyTest and SafeTensorsTest read: made by NumPy itself (and, for
safetensors, by the format's spec with Python's json and struct), so Smelt's readers are checked
against files it did not write. Run from this directory: python3 make_golden.py
The expected values are restated in the tests; change both together."""
import json
import struct

import numpy as np
from numpy.lib import format as npy_format

specials = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38], dtype='<f4')
np.save('f32_specials.npy', specials)
np.save('f64_2x3.npy', (np.arange(6, dtype='<f8') / 4 - 0.5).reshape(2, 3))
np.save('i32_minmax.npy', np.array([-2**31, -1, 0, 1, 2**31 - 1], dtype='<i4'))
np.save('i64_small.npy', np.array([[-3, 0], [7, 2**31 - 1]], dtype='<i8'))
np.save('f32_scalar.npy', np.float32(2.5) * np.ones((), dtype='<f4'))
np.save('f32_2x3x4.npy', np.arange(24, dtype='<f4').reshape(2, 3, 4))
np.save('f64_fortran_2x3x4.npy', np.asfortranarray(np.arange(24, dtype='<f8').reshape(2, 3, 4)))
np.save('bool_2x2.npy', np.array([[True, False], [False, True]]))
np.save('f16_halves.npy', np.array([0.5, -1.0, 65504.0, 6e-08], dtype='<f2'))
np.save('f32_big_endian.npy', np.array([1.0, -2.0, 0.15625], dtype='>f4'))
np.save('f32_empty_0x3.npy', np.zeros((0, 3), dtype='<f4'))
with open('i32_version2.npy', 'wb') as f:
    npy_format.write_array(f, np.arange(5, dtype='<i4') * 3, version=(2, 0))
with open('f32_version3.npy', 'wb') as f:
    npy_format.write_array(f, np.array([[1.0, 2.0]], dtype='<f4'), version=(3, 0))


def safetensors(path, tensors, metadata):
    """The spec: u64 header length, JSON header, padded with spaces to 8 bytes, then the data."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors:
        data = array.astype(array.dtype.newbyteorder('<')).tobytes()
        header[name] = {'shape': list(array.shape), 'dtype': {'f4': 'F32', 'f8': 'F64', 'i4': 'I32', 'i8': 'I64', 'f2': 'F16'}[array.dtype.str[1:]],
                        'data_offsets': [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header['__metadata__'] = metadata
    text = json.dumps(header).encode()
    text += b' ' * (-(8 + len(text)) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


safetensors('numpy_made.safetensors', [
    ('embed.weight', np.arange(6, dtype='<f4').reshape(3, 2) - 2.5),
    ('head.bias', np.array([0.25, -0.0], dtype='<f8')),
    ('steps', np.array(7, dtype='<i8')),
    ('half', np.array([1.5, -0.25], dtype='<f2')),
    ('labels', np.array([3, 1, 4], dtype='<i4')),
], {'format': 'pt', 'note': 'made by make_golden.py'})
