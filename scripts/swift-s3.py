"""A real S3 server on loopback for the tests and the benchmark: OpenStack Swift (account,
container and object servers, and a proxy with the s3api and tempauth middleware) and the
memcached it needs, on free 127.0.0.1 ports, with everything under the folder given.

    /usr/bin/python3 scripts/swift-s3.py <folder>

Prints one line of JSON once the proxy answers S3 requests (`{"endpoint": ..., "accessKeyId":
..., "secretAccessKey": ...}`), then runs until SIGTERM or SIGINT, which stops every server.
Nothing is written outside the folder: the servers read swift.conf from it (set_swift_dir),
not from /etc/swift. Run it with Debian's Python (python3-swift, memcached).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from swift.common.ring import RingBuilder

ACCESS_KEY, SECRET_KEY = 'test:tester', 'testing'
SERVERS = ('account', 'container', 'object')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def configure(root, ports, memcached):
    devices = os.path.join(root, 'devices')
    os.makedirs(os.path.join(devices, 'd1'), exist_ok=True)
    write(os.path.join(root, 'swift.conf'), '\n'.join([
        '[swift-hash]', 'swift_hash_path_prefix = maproom', 'swift_hash_path_suffix = tests',
        '[storage-policy:0]', 'name = default', 'default = yes', '']))
    common = ['[DEFAULT]', f'swift_dir = {root}', f'devices = {devices}', 'mount_check = false',
              'workers = 0', 'bind_ip = 127.0.0.1', 'log_level = WARNING']
    for name in SERVERS:
        write(os.path.join(root, f'{name}-server.conf'), '\n'.join(common + [
            f'bind_port = {ports[name]}', '[pipeline:main]', f'pipeline = healthcheck {name}-server',
            f'[app:{name}-server]', f'use = egg:swift#{name}',
            '[filter:healthcheck]', 'use = egg:swift#healthcheck', '']))
        # What `swift-ring-builder <name>.builder create 10 1 1; add r1z1-...; rebalance` makes.
        builder = RingBuilder(10, 1, 1)
        builder.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': ports[name],
                         'device': 'd1', 'weight': 1})
        builder.rebalance()
        builder.get_ring().save(os.path.join(root, f'{name}.ring.gz'))
    write(os.path.join(root, 'proxy-server.conf'), '\n'.join([
        '[DEFAULT]', f'swift_dir = {root}', 'workers = 0', 'bind_ip = 127.0.0.1',
        f'bind_port = {ports["proxy"]}', 'log_level = WARNING',
        '[pipeline:main]',
        'pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats '
        's3api tempauth copy slo dlo proxy-logging proxy-server',
        '[app:proxy-server]', 'use = egg:swift#proxy', 'account_autocreate = true',
        '[filter:tempauth]', 'use = egg:swift#tempauth', 'user_test_tester = testing .admin',
        '[filter:s3api]', 'use = egg:swift#s3api',
        '[filter:cache]', 'use = egg:swift#memcache', f'memcache_servers = 127.0.0.1:{memcached}',
        *[f'[filter:{name}]\nuse = egg:swift#{name.replace("-", "_")}' for name in (
            'catch_errors', 'gatekeeper', 'healthcheck', 'proxy-logging', 'listing_formats',
            'copy', 'slo', 'dlo')],
        '']))


# Each server in a process of its own, reading swift.conf from the folder.
RUN_SERVER = '''
import sys
from swift.common import constraints, storage_policy, utils, wsgi
utils.set_swift_dir(sys.argv[1])
storage_policy.reload_storage_policies()
constraints.reload_constraints()
sys.exit(wsgi.run_wsgi(sys.argv[2], sys.argv[3] + '-server'))
'''


def ready(url, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return True
        except OSError:
            time.sleep(0.3)
    return False


def main():
    root = os.path.abspath(sys.argv[1])
    os.makedirs(root, exist_ok=True)
    ports = {name: free_port() for name in SERVERS + ('proxy',)}
    memcached_port = free_port()
    configure(root, ports, memcached_port)
    children = []

    def stop(*_):
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log = open(os.path.join(root, 'servers.log'), 'a')
    children.append(subprocess.Popen(
        ['memcached', '-l', '127.0.0.1', '-p', str(memcached_port), '-U', '0', '-m', '64',
         *(['-u', 'root'] if os.geteuid() == 0 else [])], stdout=log, stderr=log))
    for name in SERVERS + ('proxy',):
        conf = os.path.join(root, f'{name}-server.conf')
        children.append(subprocess.Popen([sys.executable, '-c', RUN_SERVER, root, conf, name],
                                         stdout=log, stderr=log))
    for name in SERVERS:
        if not ready(f'http://127.0.0.1:{ports[name]}/healthcheck', 120):
            stop_and_fail(stop, f'the {name} server did not start (see {root}/servers.log)')
    if not ready(f'http://127.0.0.1:{ports["proxy"]}/healthcheck', 120):
        stop_and_fail(stop, f'the proxy did not start (see {root}/servers.log)')
    print(json.dumps({'endpoint': f'http://127.0.0.1:{ports["proxy"]}', 'accessKeyId': ACCESS_KEY,
                      'secretAccessKey': SECRET_KEY}), flush=True)
    while True:
        for child in children:
            if child.poll() is not None:
                stop_and_fail(stop, f'a server stopped (see {root}/servers.log)')
        time.sleep(1)


def stop_and_fail(stop, message):
    print(message, file=sys.stderr, flush=True)
    try:
        stop()
    except SystemExit:
        pass
    sys.exit(1)


if __name__ == '__main__':
    main()
