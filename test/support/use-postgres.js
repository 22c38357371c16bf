process.env.TEST_DATABASE = 'postgresql';
